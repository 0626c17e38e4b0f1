#include "planner/host_choice.h"
#include "base/suggest.h"
#include "base/words.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace topoplan {
namespace {

constexpr Level kTree[] = {Level::world, Level::site, Level::pod, Level::leaf_group, Level::domain, Level::host};

struct Picker {
  const Locality& loc;
  const std::vector<int>& capacity;  // up GPUs per host
  std::vector<int> out;

  // Takes `need` GPUs from the hosts [first, last): in topology order, all inside one unit at
  // kTree[depth], so the hosts of each unit below are contiguous.
  void pick(const int* first, const int* last, size_t depth, int need) {
    if (need <= 0) return;
    if (depth + 1 == std::size(kTree)) {
      for (const int* h = first; h != last && need > 0; ++h) {
        out.push_back(*h);
        need -= capacity[static_cast<size_t>(*h)];
      }
      return;
    }
    const Level child = kTree[depth + 1];
    struct Unit {
      const int *first, *last;
      int gpus;
    };
    std::vector<Unit> units;  // in topology order
    for (const int* h = first; h != last;) {
      const int id = loc.unit(*h, child);
      Unit u{h, h, 0};
      for (; u.last != last && loc.unit(*u.last, child) == id; ++u.last) u.gpus += capacity[static_cast<size_t>(*u.last)];
      units.push_back(u);
      h = u.last;
    }
    // Fullest first; the last one taken is the smallest that still covers what is left.
    std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.gpus > b.gpus; });
    while (need > 0 && !units.empty()) {
      // The smallest unit that covers the need; the first in topology order among equals.
      const Unit* fit = nullptr;
      for (const Unit& u : units)
        if (u.gpus >= need && (!fit || u.gpus < fit->gpus)) fit = &u;
      if (fit) {
        pick(fit->first, fit->last, depth + 1, need);
        return;
      }
      pick(units.front().first, units.front().last, depth + 1, units.front().gpus);
      need -= units.front().gpus;
      units.erase(units.begin());
    }
  }
};

}  // namespace

std::vector<int> hosts_offered(const Cluster& c, const std::vector<int>& free) {
  if (!free.empty()) return free;
  std::vector<int> all(c.hosts().size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

void hosts_sort(const Locality& loc, std::vector<int>& hosts) {
  // Keys made once per host, not four lookups per comparison; the host breaks ties, so the
  // order is total and needs no stable sort.
  std::vector<std::array<int, 5>> keys;
  keys.reserve(hosts.size());
  for (int h : hosts) {
    const size_t i = static_cast<size_t>(h);
    keys.push_back({loc.site[i], loc.pod[i], loc.leaf_group[i], loc.domain[i], h});
  }
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < keys.size(); ++i) hosts[i] = keys[i][4];
}

Result<HostChoice> hosts_choose(const Cluster& c, const Locality& loc, const DownSet& down,
                                const std::vector<int>& free, int gpus) {
  std::vector<int> capacity(c.hosts().size(), 0);
  std::vector<int> whole, partial;
  int whole_gpus = 0, all_gpus = 0;
  for (int h : free) {
    const int up = down.gpus_up_count(c, h);
    capacity[static_cast<size_t>(h)] = up;
    if (up == 0) continue;
    all_gpus += up;
    if (down.host_whole(c, h)) {
      whole.push_back(h);
      whole_gpus += up;
    } else {
      partial.push_back(h);
    }
  }
  if (all_gpus < gpus)
    return Error{"the job needs " + std::to_string(gpus) + " GPUs; the " +
                 counted(static_cast<int64_t>(free.size()), "free host") + (free.size() == 1 ? " has " : " have ") +
                 std::to_string(all_gpus) + " up"};
  hosts_sort(loc, whole);
  hosts_sort(loc, partial);
  HostChoice out;
  Picker picker{loc, capacity, {}};
  if (whole_gpus >= gpus) {
    picker.pick(whole.data(), whole.data() + whole.size(), 0, gpus);
  } else {
    picker.out = whole;
    // Hosts with something down, the fullest first.
    std::stable_sort(partial.begin(), partial.end(),
                     [&](int a, int b) { return capacity[static_cast<size_t>(a)] > capacity[static_cast<size_t>(b)]; });
    int need = gpus - whole_gpus;
    for (int h : partial)
      if (need > 0) {
        picker.out.push_back(h);
        need -= capacity[static_cast<size_t>(h)];
      }
    out.partial_hosts = true;
  }
  out.hosts = std::move(picker.out);
  hosts_sort(loc, out.hosts);
  for (int h : out.hosts) out.gpus += capacity[static_cast<size_t>(h)];
  for (int l = 0; l < kLevels; ++l) {
    std::vector<int> units;
    for (int h : out.hosts) units.push_back(loc.unit(h, static_cast<Level>(l)));
    std::sort(units.begin(), units.end());
    out.spans[static_cast<size_t>(l)] = static_cast<int>(std::unique(units.begin(), units.end()) - units.begin());
  }
  const int n = static_cast<int>(out.hosts.size());
  auto span = [&](Level l) { return out.spans[static_cast<size_t>(l)]; };
  out.why = counted(n, "host") + " in " + counted(span(Level::leaf_group), "leaf group") + ", " +
            counted(span(Level::pod), "pod") + ", " + counted(span(Level::site), "site");
  if (static_cast<int>(free.size()) == n)
    out.why += ": every host offered";
  else if (out.partial_hosts)
    out.why += ": every whole host offered, and the fullest of those with a GPU, NIC or cable down";
  else
    out.why += ": the fewest leaf groups, pods and sites that hold " + std::to_string(gpus) + " GPUs on whole hosts";
  return out;
}

Result<std::vector<int>> hosts_by_name(const Cluster& c, const std::vector<std::string>& names) {
  std::vector<int> out;
  std::vector<char> seen(c.hosts().size(), 0);
  std::vector<std::string> all;
  for (const std::string& name : names) {
    std::optional<int> h = c.host_index(name);
    if (!h) {
      if (all.empty())
        for (const Host& host : c.hosts()) all.push_back(host.name);
      return Error{"no host '" + name + "' in the cluster" + did_you_mean(name, all) +
                   " (hosts are named like '" + c.hosts().front().name + "')"};
    }
    if (seen[static_cast<size_t>(*h)]++) return Error{"host '" + name + "' is listed twice"};
    out.push_back(*h);
  }
  return out;
}

}  // namespace topoplan
