// topoplan's HTML report: draws the fabric of the embedded topoplan-report document as a tree of
// tiers, links coloured by the job's utilisation, and lights up a group's members and the links
// its traffic crosses. No framework: the page must open offline and stay fast at 16,384 GPUs.
'use strict';
(function () {
  const data = JSON.parse(document.getElementById('topoplan-data').textContent);
  const t0 = performance.now();
  const D = data.devices, L = data.links;
  const nDev = D.name.length, nLink = L.a.length;
  const kindOf = (name) => D.kinds.indexOf(name);
  const GPU = kindOf('gpu'), NIC = kindOf('nic'), SWITCH = kindOf('switch'), ROUTER = kindOf('site_router');
  const isFabric = (v) => D.kind[v] === SWITCH || D.kind[v] === ROUTER;
  const SVGNS = 'http://www.w3.org/2000/svg';
  // Above this many hosts, hosts start aggregated per leaf group; above this many switches in a
  // tier, its switches start aggregated by the units below them.
  const FLAT_HOSTS = 32, FLAT_SWITCHES = 48;

  // Links of each device (compressed rows).
  const adjStart = new Int32Array(nDev + 1), adj = new Int32Array(2 * nLink);
  for (let l = 0; l < nLink; l++) { adjStart[L.a[l] + 1]++; adjStart[L.b[l] + 1]++; }
  for (let v = 0; v < nDev; v++) adjStart[v + 1] += adjStart[v];
  { const fill = adjStart.slice(0, nDev);
    for (let l = 0; l < nLink; l++) { adj[fill[L.a[l]]++] = l; adj[fill[L.b[l]]++] = l; } }
  const other = (l, v) => (L.a[l] === v ? L.b[l] : L.a[l]);
  const linksOf = (v) => adj.subarray(adjStart[v], adjStart[v + 1]);

  // Each host's devices, and the fabric switches its NICs reach.
  const hostDevices = data.hosts.map(() => []);
  for (let v = 0; v < nDev; v++) if (D.host[v] >= 0 && !isFabric(v)) hostDevices[D.host[v]].push(v);
  const hostSwitches = data.hosts.map((_, h) => {
    const s = new Set();
    for (const v of hostDevices[h]) if (D.kind[v] === NIC) for (const l of linksOf(v)) if (isFabric(other(l, v))) s.add(other(l, v));
    return [...s].sort((x, y) => x - y);
  });

  // Load of the selected layout: per link and direction, utilisation over the step and at peak.
  let part = 0, mode = 'peak';
  // With port counters (observe --html), observed / predicted per direction too: 0 where no
  // counter measured it, BUSY where the job puts nothing on a busy link.
  const BUSY = 1e9;
  const loads = data.layouts.map((lay) => {
    const avg = new Float32Array(2 * nLink), peak = new Float32Array(2 * nLink), phase = new Int8Array(2 * nLink).fill(-1);
    for (let i = 0; i < lay.load.edge.length; i++) {
      const k = lay.load.edge[i];
      avg[k] = lay.load.avg[i]; peak[k] = lay.load.peak[i]; phase[k] = lay.load.phase[i];
    }
    const ratio = new Float32Array(2 * nLink);
    if (lay.observed) for (let i = 0; i < lay.observed.edge.length; i++) ratio[lay.observed.edge[i]] = lay.observed.ratio[i];
    // Exposed seconds per step of the collectives each direction bounds, and their text.
    const exposed = new Float32Array(2 * nLink), exposedText = new Map();
    if (lay.exposed) for (let i = 0; i < lay.exposed.edge.length; i++) {
      exposed[lay.exposed.edge[i]] = lay.exposed.s[i]; exposedText.set(lay.exposed.edge[i], lay.exposed.text[i]);
    }
    return { avg, peak, phase, ratio, exposed, exposedText };
  });
  const observed = data.layouts.some((lay) => lay.observed);
  // Two layouts (review, plan) open coloured by what each link costs the step: the exposed time of
  // the collectives it bounds, on one scale for both, so the better plan does not look the hotter
  // (its links run fuller in a shorter phase).
  const compared = data.layouts.length === 2;
  if (observed) mode = 'ratio';
  else if (compared) mode = 'exposed';
  const mostExposed = data.layouts.reduce((m, lay) => Math.max(m, ...(lay.exposed ? lay.exposed.s : [])), 1e-12);
  const util = (p, l, dir) => {
    const k = 2 * l + dir;
    if (mode === 'exposed') return loads[p].exposed[k] / mostExposed;
    return (mode === 'ratio' ? loads[p].ratio : mode === 'peak' ? loads[p].peak : loads[p].avg)[k];
  };
  // A directed link as the text names it: "h001/nic3 -> leaf3".
  const linkName = (l, dir) => (dir ? `${D.name[L.b[l]]} -> ${D.name[L.a[l]]}` : `${D.name[L.a[l]]} -> ${D.name[L.b[l]]}`);
  // The links critical findings name, per layout: drawn in their own colour from the first view.
  const critical = data.layouts.map((lay) => {
    const m = new Map();
    for (const c of lay.critical || []) if (!m.has(c.link)) m.set(c.link, linkName(c.link, c.dir) + ': ' + c.message);
    return m;
  });

  // Utilisation to colour: idle grey-blue, half yellow, full red, past full dark red.
  function colour(u) {
    if (!(u > 0)) return '#c8d0d8';
    if (u >= 1) return u > 1.05 ? '#7a0010' : '#d7191c';
    const hue = u < 0.5 ? 210 - (210 - 55) * (u / 0.5) : 55 - 55 * ((u - 0.5) / 0.5);
    return `hsl(${hue.toFixed(0)}, 85%, ${u < 0.5 ? 50 : 45}%)`;
  }
  // Observed over predicted: as predicted green, twice gold, four times orange, beyond red; under
  // 1/1.25 of it steel blue, under half purple (the traffic went elsewhere).
  function ratioColour(r) {
    if (!(r > 0)) return '#c8d0d8';
    if (r < 0.8) return r <= 0.5 ? '#6a3d9a' : '#4682b4';
    return r <= 1.25 ? '#1a9641' : r <= 2 ? '#e6b800' : r <= 4 ? '#f07c00' : '#d7191c';
  }
  const paint = (v) => (mode === 'ratio' ? ratioColour(v) : colour(v));
  const shown = (v) => (mode === 'ratio' ? (v >= BUSY ? 'busy, none predicted' : v > 0 ? 'x' + v.toFixed(2) : 'no counter')
    : mode === 'exposed' ? (v > 0 ? pct(v) + ' of the most' : 'none') : pct(v));
  const CRITICAL = '#c2185b';
  const MODES = { ratio: 'observed / predicted', exposed: 'exposed time of the collectives it bounds', peak: 'in its busiest phase', avg: 'step average' };
  const widthOf = (GBps) => Math.max(1, Math.min(8, Math.log2(1 + GBps / 12.5)));
  const pct = (u) => (100 * u).toFixed(u < 0.1 ? 1 : 0) + '%';
  const rate = (GBps) => (GBps >= 1000 ? (GBps / 1000).toFixed(1) + ' TB/s' : GBps.toFixed(GBps < 10 ? 1 : 0) + ' GB/s');

  // ---- Units: what one box stands for (a host, a group of hosts, a switch, a group of switches).
  const expanded = new Set();  // unit keys the user opened
  let units = [], unitOfHost = [], unitOfSwitch = new Map(), rows = [];

  function buildUnits() {
    units = []; unitOfHost = new Array(data.hosts.length); unitOfSwitch = new Map();
    const manyHosts = data.hosts.length > FLAT_HOSTS;
    const hostRow = [], byKey = new Map();
    data.hosts.forEach((_, h) => {
      const key = 'H' + hostSwitches[h].join(',');
      if (!manyHosts || expanded.has(key)) {
        const u = { key: 'h' + h, hosts: [h], members: [h], row: 0, group: manyHosts ? key : null };
        units.push(u); hostRow.push(u); unitOfHost[h] = u; return;
      }
      let u = byKey.get(key);
      if (!u) { u = { key, hosts: [], members: [], row: 0, group: null }; byKey.set(key, u); units.push(u); hostRow.push(u); }
      u.hosts.push(h); u.members.push(h); unitOfHost[h] = u;
    });
    rows = [hostRow];
    // Switch tiers bottom up; a tier's switches keyed by the units below them they link to.
    const tiers = [...new Set(D.tier.filter((t, v) => isFabric(v)))].sort((a, b) => a - b);
    const below = (v) => {
      const s = new Set();
      for (const l of linksOf(v)) {
        const w = other(l, v);
        if (isFabric(w) && D.tier[w] < D.tier[v] && unitOfSwitch.has(w)) s.add(unitOfSwitch.get(w).key);
        else if (!isFabric(w) && D.kind[w] === NIC && unitOfHost[D.host[w]]) s.add(unitOfHost[D.host[w]].key);
      }
      return [...s].sort().join('|');
    };
    tiers.forEach((tier, i) => {
      const sw = [];
      for (let v = 0; v < nDev; v++) if (isFabric(v) && D.tier[v] === tier) sw.push(v);
      const aggregate = sw.length > FLAT_SWITCHES, row = [], byBelow = new Map();
      for (const v of sw) {
        const key = 'S' + tier + ':' + below(v);
        if (!aggregate || expanded.has(key)) {
          const u = { key: 's' + v, switches: [v], members: [v], row: i + 1, group: aggregate ? key : null };
          units.push(u); row.push(u); unitOfSwitch.set(v, u); continue;
        }
        let u = byBelow.get(key);
        if (!u) { u = { key, switches: [], members: [], row: i + 1, group: null }; byBelow.set(key, u); units.push(u); row.push(u); }
        u.switches.push(v); u.members.push(v); unitOfSwitch.set(v, u);
      }
      rows.push(row);
    });
    if (rows.length > 2 && rows[0].length > FLAT_HOSTS) foldPods();
  }

  // At scale the leaf groups and their hosts fold once more, per pod: the units above the leaves
  // they link to. A pod opens as a whole.
  function foldPods() {
    const podOf = new Map();  // leaf unit -> pod key
    for (const u of rows[1]) {
      const above = new Set();
      for (const v of u.switches) for (const l of linksOf(v)) { const w = other(l, v); if (isFabric(w) && D.tier[w] > D.tier[v]) above.add(unitOfSwitch.get(w).key); }
      podOf.set(u, 'P:' + [...above].sort().join('|'));
    }
    const hostPod = (u) => { for (const sw of hostSwitches[u.hosts[0]]) { const lu = unitOfSwitch.get(sw); if (podOf.has(lu)) return podOf.get(lu); } return null; };
    const fold = (row, podKey, suffix, field, index) => {
      const out = [], merged = new Map();
      for (const u of row) {
        const pod = podKey(u);
        if (!pod || expanded.has(pod)) { out.push(u); continue; }
        let m = merged.get(pod);
        if (!m) { m = { key: pod + suffix, expand: pod, [field]: [], members: [], row: u.row, group: null }; merged.set(pod, m); out.push(m); }
        for (const x of u[field]) { m[field].push(x); m.members.push(x); index(x, m); }
      }
      return out;
    };
    if (new Set(podOf.values()).size < 2) return;
    rows[0] = fold(rows[0], hostPod, ':h', 'hosts', (h, m) => { unitOfHost[h] = m; });
    rows[1] = fold(rows[1], (u) => podOf.get(u), ':l', 'switches', (v, m) => unitOfSwitch.set(v, m));
    units = rows.flat();
  }

  const unitOf = (v) => (isFabric(v) ? unitOfSwitch.get(v) : unitOfHost[D.host[v]]);

  // Links between units: every physical link between a NIC or switch and a switch, folded per
  // pair of units; the colour is its hottest direction's, the width its capacity.
  function unitLinks(p) {
    const m = new Map();
    for (let l = 0; l < nLink; l++) {
      const a = L.a[l], b = L.b[l];
      if (!isFabric(a) && !isFabric(b)) continue;
      if ((!isFabric(a) && D.kind[a] !== NIC) || (!isFabric(b) && D.kind[b] !== NIC)) continue;
      const ua = unitOf(a), ub = unitOf(b);
      if (!ua || !ub || ua === ub) continue;
      const [lo, hi, down] = ua.row < ub.row ? [ua, ub, 1] : [ub, ua, 0];  // down: a is the upper end
      const key = lo.key + '>' + hi.key;
      let e = m.get(key);
      if (!e) { e = { lo, hi, links: [], GBps: 0, up: 0, dn: 0, critical: [] }; m.set(key, e); }
      e.links.push(l); e.GBps += L.bw_GBps[l];
      if (critical[p].has(l)) e.critical.push(critical[p].get(l));
      const uUp = util(p, l, down ? 1 : 0), uDn = util(p, l, down ? 0 : 1);  // lower-to-upper, upper-to-lower
      e.up = Math.max(e.up, uUp); e.dn = Math.max(e.dn, uDn);
    }
    return [...m.values()];
  }

  // ---- Groups: members and the links their traffic crosses (who exchanges with whom, routed
  // rail-aligned up and down the fabric over every shortest path, as ECMP spreads them).
  let selected = null;  // {kind, index}
  const railNic = (gpu) => {
    const h = D.host[gpu], nics = hostDevices[h].filter((v) => D.kind[v] === NIC);
    if (!nics.length) return -1;
    const g = hostDevices[h].filter((v) => D.kind[v] === GPU).indexOf(gpu);
    return nics[Math.floor(g * nics.length / Math.max(1, hostDevices[h].filter((v) => D.kind[v] === GPU).length))];
  };
  const bfsCache = new Map();
  function distFrom(s) {
    if (bfsCache.has(s)) return bfsCache.get(s);
    const dist = new Map([[s, 0]]), queue = [s];
    for (let i = 0; i < queue.length; i++) {
      const v = queue[i];
      for (const l of linksOf(v)) { const w = other(l, v); if (isFabric(w) && !dist.has(w)) { dist.set(w, dist.get(v) + 1); queue.push(w); } }
    }
    bfsCache.set(s, dist);
    return dist;
  }
  function pathLinks(a, b, out) {
    const na = railNic(a), nb = railNic(b);
    if (na < 0 || nb < 0) return;
    const leafOf = (n) => { for (const l of linksOf(n)) if (isFabric(other(l, n))) return [other(l, n), l]; return [-1, -1]; };
    const [sa, la] = leafOf(na), [sb, lb] = leafOf(nb);
    if (sa < 0 || sb < 0) return;
    out.add(la); out.add(lb);
    const toB = distFrom(sb), fromA = distFrom(sa), d = toB.get(sa);
    if (d === undefined) return;
    // Edges on some shortest path: dist(a, x) + 1 + dist(y, b) = d.
    for (const [x, dx] of fromA) {
      if (dx >= d) continue;
      for (const l of linksOf(x)) { const y = other(l, x); if (isFabric(y) && toB.get(y) === d - dx - 1) out.add(l); }
    }
  }
  // Who sends to whom in a group: pipeline stages to the next (no wrap), expert all-to-all every
  // pair (a ring past 64 ranks, to stay fast), the other kinds NCCL's ring in rank order.
  function exchanges(kind, members) {
    const n = members.length, out = [];
    if (kind === 'ep' && n <= 64) {
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) out.push([members[i], members[j]]);
      return out;
    }
    for (let i = 0; i + (kind === 'pp' ? 1 : 0) < n && n > 1; i++) out.push([members[i], members[(i + 1) % n]]);
    return out;
  }

  function groupInfo(p) {
    if (!selected) return null;
    const list = data.layouts[p].groups[selected.kind];
    if (!list || !list[selected.index]) return null;
    const members = list[selected.index], links = new Set();
    // A named set (contention's jobs) lights the links it loads; a rank group, its ring's paths.
    const named = (data.layouts[p].group_links || {})[selected.kind];
    if (named) for (const l of named[selected.index]) links.add(l);
    else for (const [a, b] of exchanges(selected.kind, members)) if (D.host[a] !== D.host[b]) pathLinks(a, b, links);
    const name = ((data.layouts[p].group_names || {})[selected.kind] || [])[selected.index];
    // The busiest direction in its busiest phase; for the group explain opened on, the link its
    // text names, so page and text agree.
    const peak = loads[p].peak;
    let slowest = -1, dir = 0, worst = -1;
    for (const l of links) for (const d of [0, 1]) if (peak[2 * l + d] > worst) { worst = peak[2 * l + d]; slowest = l; dir = d; }
    const o = data.open || {};
    if (o.slowest && o.group && o.group.kind === selected.kind && o.group.index === selected.index && p === 0) {
      slowest = o.slowest.link; dir = o.slowest.dir; worst = peak[2 * slowest + dir]; links.add(slowest);
    }
    return { members: new Set(members), hosts: new Set(members.map((g) => D.host[g])), links, slowest, dir, worst, name };
  }

  // ---- Drawing.
  const el = (tag, attrs, parent) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  };
  const label = (u) => {
    const names = u.hosts ? u.hosts.map((h) => data.hosts[h]) : u.switches.map((v) => D.name[v]);
    return names.length === 1 ? names[0] : `${names[0]}… ×${names.length}`;
  };

  function drawFabric(p, container) {
    const info = groupInfo(p);
    const slot = 86, boxW = 78, boxH = 22, rowGap = 70, margin = 20;
    const width = Math.max(...rows.map((r) => r.length)) * slot + 2 * margin;
    const height = rows.length * rowGap + margin + 16;  // and a line for the sites' names
    const svg = el('svg', { class: 'fabric', width, height, viewBox: `0 0 ${width} ${height}` }, container);
    const yOf = (row) => height - margin - 16 - boxH - row * rowGap;
    // Hosts evenly, then each row above at the mean of what it links to, packed left to right.
    // Hosts spread over the widest row, so the switches above them need not fan out.
    const x = new Map();
    const step = Math.max(slot, (width - 2 * margin) / rows[0].length);
    rows[0].forEach((u, i) => x.set(u, margin + i * step + step / 2));
    const links = unitLinks(p);
    for (let r = 1; r < rows.length; r++) {
      const want = new Map();
      for (const e of links) if (e.hi.row === r && x.has(e.lo)) { const w = want.get(e.hi) || [0, 0]; w[0] += x.get(e.lo); w[1]++; want.set(e.hi, w); }
      const desired = (u) => { const w = want.get(u); return w ? w[0] / w[1] : width / 2; };
      const row = rows[r].slice().sort((a, b) => desired(a) - desired(b));
      // Each as near its children's middle as the boxes beside it allow: left to right, then back.
      const at = row.map(desired);
      for (let i = 0; i < at.length; i++) at[i] = Math.max(at[i], i ? at[i - 1] + slot : margin + slot / 2);
      for (let i = at.length - 1; i >= 0; i--) at[i] = Math.min(at[i], i + 1 < at.length ? at[i + 1] - slot : width - margin - slot / 2);
      row.forEach((u, i) => x.set(u, at[i]));
    }
    const gLinks = el('g', { class: 'links' }, svg), gCritical = el('g', { class: 'links critical' }, svg);
    for (const e of links) {
      const x1 = x.get(e.lo), y1 = yOf(e.lo.row), x2 = x.get(e.hi), y2 = yOf(e.hi.row) + boxH;
      const hot = Math.max(e.up, e.dn);
      let inGroup = false;
      if (info) for (const l of e.links) if (info.links.has(l)) { inGroup = true; break; }
      const crit = e.critical.length > 0;
      const line = el('line', { x1, y1, x2, y2, stroke: crit ? CRITICAL : paint(hot),
        'stroke-width': widthOf(e.GBps / e.links.length) * (e.links.length > 1 ? 1.5 : 1) + (crit ? 2 : 0),
        class: 'link' + (crit ? ' critical' : '') + (inGroup ? ' in-group' : '') + (info && e.links.includes(info.slowest) ? ' slowest' : '') +
          (e.links.includes(focusLink) ? ' focus' : '') }, crit ? gCritical : gLinks);
      const behind = e.links.flatMap((l) => [0, 1].filter((d) => loads[p].exposedText.has(2 * l + d))
        .map((d) => `${linkName(l, d)} bounds ${loads[p].exposedText.get(2 * l + d)} of exposed communication per step`));
      el('title', {}, line).textContent = (crit ? 'critical: ' + e.critical[0] + '\n' : '') + (behind.length ? behind.join('\n') + '\n' : '') +
        `${e.links.length} link${e.links.length > 1 ? 's' : ''}, ${rate(e.GBps)} in all; ` +
        `hottest up ${shown(e.up)}, down ${shown(e.dn)} (${MODES[mode]})`;
    }
    const gUnits = el('g', { class: 'units' }, svg);
    rows.forEach((row, r) => {
      const g = el('g', { class: 'row', 'data-row': r }, gUnits);
      for (const u of row) {
        const cls = ['unit', u.hosts ? 'host' : 'switch', u.members.length > 1 ? 'aggregate' : 'single'];
        if (info && u.hosts && u.hosts.some((h) => info.hosts.has(h))) cls.push('member');
        const box = el('g', { class: cls.join(' '), transform: `translate(${x.get(u) - boxW / 2},${yOf(r)})`, 'data-key': u.key }, g);
        const rect = el('rect', { width: boxW, height: boxH, rx: 3 }, box);
        // A box whose hosts all run one named set's GPUs (contention's jobs) in that set's colour.
        if (u.hosts && setOfHost.size) {
          const s = setOfHost.get(u.hosts[0]);
          if (s !== undefined && u.hosts.every((h) => setOfHost.get(h) === s)) rect.style.fill = setColour(s);
        }
        el('text', { x: boxW / 2, y: 15, 'text-anchor': 'middle' }, box).textContent = label(u);
        el('title', {}, box).textContent = u.members.length > 1 ? `${label(u)}: click to open` : label(u) + (u.hosts ? ': click for its GPUs and NICs' : '');
        box.addEventListener('click', () => onUnit(u));
      }
    });
    // Each site's name under its hosts, where the cluster has more than one.
    const sites = new Map();
    for (const u of rows[0]) {
      const site = D.site[hostDevices[u.hosts[0]][0]];
      const [lo, hi] = sites.get(site) || [Infinity, -Infinity];
      sites.set(site, [Math.min(lo, x.get(u)), Math.max(hi, x.get(u))]);
    }
    if (sites.size > 1)
      for (const [site, [lo, hi]] of sites) {
        el('line', { x1: lo - boxW / 2, x2: hi + boxW / 2, y1: height - margin - 8, y2: height - margin - 8, class: 'site-band' }, svg);
        el('text', { x: (lo + hi) / 2, y: height - margin + 6, 'text-anchor': 'middle', class: 'site-label' }, svg).textContent = data.sites[site] || 'site ' + site;
      }
    if (info && info.slowest >= 0) {
      const e = links.find((k) => k.links.includes(info.slowest));
      if (e) {
        const t = el('text', { x: (x.get(e.lo) + x.get(e.hi)) / 2 + 4, y: (yOf(e.lo.row) + yOf(e.hi.row) + boxH) / 2, class: 'slowest-label' }, svg);
        t.textContent = `slowest: ${linkName(info.slowest, info.dir)} ${pct(info.worst)}`;
      }
    }
    return svg;
  }

  // One host's devices in rows (NICs, switches, GPUs, CPUs), its links coloured the same way.
  function drawHost(p, h, container) {
    const info = groupInfo(p);
    const devs = hostDevices[h];
    const order = ['nic', 'pcie_switch', 'nvswitch', 'gpu', 'cpu'];
    const rowsOf = order.map((k) => devs.filter((v) => D.kind[v] === kindOf(k))).filter((r) => r.length);
    const slot = 74, boxW = 66, boxH = 20, rowGap = 52, margin = 16;
    const width = Math.max(...rowsOf.map((r) => r.length)) * slot + 2 * margin, height = rowsOf.length * rowGap + margin;
    const svg = el('svg', { class: 'host-detail', width, height, 'data-host': data.hosts[h] }, container);
    const pos = new Map();
    rowsOf.forEach((r, i) => r.forEach((v, j) => pos.set(v, [(width - r.length * slot) / 2 + j * slot + slot / 2, margin + i * rowGap])));
    const g = el('g', { class: 'links' }, svg);
    for (const v of devs) for (const l of linksOf(v)) {
      const w = other(l, v);
      if (v > w || !pos.has(w)) continue;
      const [x1, y1] = pos.get(v), [x2, y2] = pos.get(w);
      const crit = critical[p].has(l);
      const line = el('line', { x1, y1: y1 + boxH / 2, x2, y2: y2 + boxH / 2, stroke: crit ? CRITICAL : paint(Math.max(util(p, l, 0), util(p, l, 1))),
        'stroke-width': widthOf(L.bw_GBps[l]) + (crit ? 2 : 0), class: 'link' + (crit ? ' critical' : '') }, g);
      el('title', {}, line).textContent = (crit ? 'critical: ' + critical[p].get(l) + '\n' : '') +
        `${linkName(l, 0)} ${L.kinds[L.kind[l]]} ${rate(L.bw_GBps[l])}: ${shown(util(p, l, 0))}, back ${shown(util(p, l, 1))}`;
    }
    for (const [v, [cx, cy]] of pos) {
      const member = info && info.members.has(v);
      const box = el('g', { class: 'device ' + D.kinds[D.kind[v]] + (member ? ' member' : ''), transform: `translate(${cx - boxW / 2},${cy})`, 'data-device': v }, svg);
      el('rect', { width: boxW, height: boxH, rx: 3 }, box);
      el('text', { x: boxW / 2, y: 14, 'text-anchor': 'middle' }, box).textContent = D.name[v].split('/').pop();
      if (D.kind[v] === GPU) box.addEventListener('mouseenter', () => hoverGpu(v));
    }
  }

  // The command's tables for one layout, cell for cell as it prints them.
  function drawTables(lay, col) {
    const t = lay.tables;
    if (!t || !t.kinds) return;
    const table = (title, rows) => {
      const h = document.createElement('h3');
      h.textContent = title;
      col.appendChild(h);
      const tb = document.createElement('table');
      tb.className = 'table';
      rows.forEach((r, i) => {
        const tr = tb.insertRow();
        for (const cell of r) { const c = document.createElement(i ? 'td' : 'th'); c.textContent = cell; tr.appendChild(c); }
      });
      col.appendChild(tb);
    };
    table('Exposed communication by kind', t.kinds);
    table("Collectives per step (per group; the slowest group's time per call)",
      [['kind', 'phase', 'op', 'size', 'calls', 'algorithm', 'alone', 'contended', 'exposed']].concat(t.items));
    table('Hottest links (busiest phase first; average over the step)', t.links);
    if (t.memory && t.memory.length) table("Memory per GPU at each pipeline stage's peak", t.memory);
    table('Findings', [['severity', 'finding', 'cost', 'fix']].concat(t.findings.length ? t.findings : [['none', '', '', '']]));
  }

  // ---- Controls and state.
  const openHosts = new Set();  // hosts whose devices are drawn
  const app = document.getElementById('app');
  const kinds = [...new Set(data.layouts.flatMap((l) => Object.keys(l.groups)))];
  // Named sets (contention's jobs): each host's set, and a colour per set.
  const setKind = Object.keys(data.layouts[0].group_names || {})[0];
  const setNames = setKind ? data.layouts[0].group_names[setKind] : [];
  const setOfHost = new Map();
  if (setKind) data.layouts[0].groups[setKind].forEach((gpus, i) => { for (const v of gpus) setOfHost.set(D.host[v], i); });
  const setColour = (i) => `hsl(${(i * 137.508) % 360}, 55%, 82%)`;

  function hoverGpu(v) {
    const kind = selected ? selected.kind : kinds[0];
    if (!kind) return;
    const list = data.layouts[part].groups[kind] || [];
    const index = list.findIndex((g) => g.includes(v));
    if (index >= 0 && (!selected || selected.kind !== kind || selected.index !== index)) selectGroup(kind, index);
  }
  function onUnit(u) {
    if (u.members.length > 1) { expanded.add(u.expand || u.key); render(); return; }
    if (u.hosts) { const h = u.hosts[0]; if (openHosts.has(h)) openHosts.delete(h); else openHosts.add(h); render(); }
  }
  function selectGroup(kind, index) {
    selected = kind ? { kind, index } : null;
    // The group's hosts are shown one by one, so its members can be seen.
    const info = groupInfo(part);
    // Pods, then leaf groups: open until each member's host is a box of its own.
    for (let pass = 0; info && pass < 3; pass++) {
      let opened = false;
      for (const h of info.hosts) if (unitOfHost[h] && unitOfHost[h].members.length > 1) { expanded.add(unitOfHost[h].expand || unitOfHost[h].key); opened = true; }
      if (!opened) break;
      buildUnits();
    }
    render();
  }

  const controls = document.createElement('div');
  controls.className = 'controls';
  controls.innerHTML =
    '<label>colour by <select id="mode">' + Object.entries(MODES).filter(([k]) => (k !== 'ratio' || observed) && (k !== 'exposed' || compared))
      .map(([k, v]) => `<option value="${k}"${k === mode ? ' selected' : ''}>${v}</option>`).join('') + '</select></label>' +
    (data.layouts.length > 1 ? '' : '') +
    '<label>group <select id="kind"><option value="">none</option>' + kinds.map((k) => `<option>${k}</option>`).join('') + '</select></label>' +
    '<label>index <input id="index" type="number" min="0" value="0"></label>' +
    '<button id="collapse" type="button">collapse all</button>' +
    '<span class="legend">utilisation <span class="scale"></span> 0% · 50% · 100% · over</span>' +

    `<span class="legend">critical finding <i class="swatch" style="background:${CRITICAL}"></i></span>` +
    (observed ? '<span class="legend ratio">observed / predicted <span class="scale"></span> ≤x0.5 · x0.8 · x1 · x2 · x4 · more</span>' : '') +
    '<span class="legend widths">per link <svg width="210" height="14"></svg></span>' +
    (setNames.length ? '<div class="legend sets">' + setKind + 's: ' + setNames.map((n, i) =>
      `<a href="#" data-set="${i}"><i class="swatch" style="background:${setColour(i)}"></i>${n.replace(/[&<>"]/g, (c) => '&#' + c.charCodeAt(0) + ';')}</a>`).join(' ') + '</div>' : '');
  app.appendChild(controls);
  for (const a of controls.querySelectorAll('.sets a'))
    a.addEventListener('click', (e) => { e.preventDefault(); selectGroup(setKind, parseInt(a.dataset.set, 10)); });
  const scale = controls.querySelector('.scale');
  for (let i = 0; i <= 10; i++) { const s = document.createElement('i'); s.style.background = colour(i === 10 ? 1.1 : i / 9.99); scale.appendChild(s); }
  if (observed) for (const r of [0.5, 0.7, 1, 2, 4, 8]) { const s = document.createElement('i'); s.style.background = ratioColour(r); controls.querySelector('.ratio .scale').appendChild(s); }
  { const w = controls.querySelector('.widths svg');
    [25, 50, 450].forEach((GBps, i) => {
      el('line', { x1: i * 70 + 2, x2: i * 70 + 16, y1: 7, y2: 7, stroke: '#8a96a3', 'stroke-width': widthOf(GBps) }, w);
      el('text', { x: i * 70 + 19, y: 11 }, w).textContent = rate(GBps);
    }); }
  controls.querySelector('#mode').addEventListener('change', (e) => { mode = e.target.value; render(); });
  const kindSel = controls.querySelector('#kind'), indexIn = controls.querySelector('#index');
  const pick = () => selectGroup(kindSel.value, Math.max(0, parseInt(indexIn.value, 10) || 0));
  kindSel.addEventListener('change', pick);
  indexIn.addEventListener('change', pick);
  controls.querySelector('#collapse').addEventListener('click', () => { expanded.clear(); openHosts.clear(); render(); });
  const status = document.createElement('div');
  status.className = 'status';
  app.appendChild(status);
  const views = document.createElement('div');
  views.className = 'views';
  app.appendChild(views);

  function render() {
    buildUnits();
    views.textContent = '';
    data.layouts.forEach((lay, p) => {
      const col = document.createElement('section');
      col.className = 'view';
      const h = document.createElement('h2');
      h.textContent = lay.heading || `${lay.label}: step ${lay.step_text}, exposed communication ${lay.exposed_text} per step`;
      col.appendChild(h);
      const scroll = document.createElement('div');
      scroll.className = 'scroll';
      col.appendChild(scroll);
      drawFabric(p, scroll);
      for (const h of openHosts) drawHost(p, h, col);
      drawTables(lay, col);
      views.appendChild(col);
    });
    const info = groupInfo(part);
    kindSel.value = selected ? selected.kind : '';
    if (selected) indexIn.value = selected.index;
    status.textContent = info
      ? `${info.name || selected.kind + ' group ' + selected.index}: ${info.members.size} GPUs on ${info.hosts.size} host${info.hosts.size > 1 ? 's' : ''}, ` +
        (info.links.size ? `${info.links.size} fabric links, the busiest ${linkName(info.slowest, info.dir)} at ${pct(info.worst)}` : 'inside its host')
      : selected ? `no ${selected.kind} group ${selected.index}`
      : focusLink >= 0 ? `explained: ${linkName(focusLink, 0)} (outlined)` : 'pick a group, or hover a GPU of an opened host';
  }

  // explain --group or --link: open on what was explained.
  const focusLink = data.open && data.open.link !== undefined ? data.open.link : -1;
  if (data.open && data.open.group) {
    // explain opens the group's hosts too, so its GPUs show without a click (the first 8).
    selected = { kind: data.open.group.kind, index: data.open.group.index };
    const info = groupInfo(part);
    if (info) [...info.hosts].slice(0, 8).forEach((h) => openHosts.add(h));
    selectGroup(data.open.group.kind, data.open.group.index);
  } else render();
  // For tests and the curious: the state and the selection, from the console.
  window.topoplanReport = { data, selectGroup, groupInfo: () => groupInfo(part), renderMs: performance.now() - t0, units: () => units };
})();
