// Validates Kubernetes manifests as the API server would before any controller sees them: the
// custom resources' outer layers against crds.mjs, the pod, job and object metadata inside them
// against Kubernetes' own schemas (the npm package kubernetes-models), names and label keys by
// Kubernetes' syntax, and Kueue's rules for pod-set groups.
//   node validate.mjs MODULES FILE...            every document of every file must pass
//   node validate.mjs MODULES --mutations FILE... each mutation of each document must fail
// MODULES: the node_modules folder holding this folder's package.json's packages.
// Exit 0 when all hold, 1 when one does not, 2 on bad usage.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jobsetSchema, mpijobSchema, pytorchjobSchema } from "./crds.mjs";

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error("usage: node validate.mjs MODULES [--mutations] FILE...");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(args[0]), "resolve-from-here.js"));
const mutations = args[1] === "--mutations";
const files = args.slice(mutations ? 2 : 1);

const Ajv = require("ajv");
const YAML = require("yaml");
const models = {
  PodTemplateSpec: require("kubernetes-models/v1/PodTemplateSpec").PodTemplateSpec,
  JobTemplateSpec: require("kubernetes-models/batch/v1/JobTemplateSpec").JobTemplateSpec,
  ObjectMeta: require("@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta").ObjectMeta,
};

// "x-template": the value is a Kubernetes type, checked by kubernetes-models.
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addKeyword({
  keyword: "x-template",
  errors: true,
  validate: function check(model, data) {
    try {
      new models[model](data).validate();
      return true;
    } catch (e) {
      check.errors = [{ keyword: "x-template", message: `is no valid ${model}: ${e.message}` }];
      return false;
    }
  },
});
const schemas = {
  JobSet: ajv.compile(jobsetSchema),
  PyTorchJob: ajv.compile(pytorchjobSchema),
  MPIJob: ajv.compile(mpijobSchema),
};

// Kubernetes' syntax (apimachinery pkg/util/validation): a DNS label, and a label or annotation
// key (an optional DNS-subdomain prefix and '/', then a name of 63 characters at most).
const dnsLabel = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const keyName = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const labelValue = /^(|[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
function keyProblem(key) {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? "" : key.slice(0, slash);
  if (slash >= 0 && (prefix.length > 253 || !prefix.split(".").every((p) => dnsLabel.test(p))))
    return `key '${key}': its prefix is no DNS subdomain`;
  if (!keyName.test(key.slice(slash + 1))) return `key '${key}': its name is no label name`;
  return "";
}

// Every pod template of a document, with its pod set's name and size as Kueue counts them.
function podSets(doc) {
  if (doc.kind === "JobSet")
    return (doc.spec?.replicatedJobs ?? []).map((r) => ({
      name: r.name,
      pods: (r.replicas ?? 1) * (r.template?.spec?.parallelism ?? 1),
      template: r.template?.spec?.template,
    }));
  const replicas = { PyTorchJob: "pytorchReplicaSpecs", MPIJob: "mpiReplicaSpecs" }[doc.kind];
  if (replicas)
    return Object.entries(doc.spec?.[replicas] ?? {}).map(([name, r]) => ({
      name,
      pods: r.replicas ?? 1,
      template: r.template,
    }));
  return [];
}

function problems(doc) {
  const out = [];
  const validate = schemas[doc?.kind];
  if (!validate) return [`kind '${doc?.kind}' is not one this check knows (${Object.keys(schemas).join(", ")})`];
  if (!validate(doc)) for (const e of validate.errors) out.push(`${e.instancePath || "/"} ${e.message}`);
  const metas = [["/metadata", doc.metadata]];
  for (const set of podSets(doc)) metas.push([`pod set ${set.name}`, set.template?.metadata ?? {}]);
  for (const [where, meta] of metas) {
    try {
      new models.ObjectMeta(meta).validate();
    } catch (e) {
      out.push(`${where}: ${e.message}`);
    }
    for (const key of Object.keys(meta?.labels ?? {})) {
      const p = keyProblem(key);
      if (p) out.push(`${where} label ${p}`);
      if (!labelValue.test(String(meta.labels[key]))) out.push(`${where} label '${key}': bad value '${meta.labels[key]}'`);
    }
    for (const key of Object.keys(meta?.annotations ?? {})) {
      const p = keyProblem(key);
      if (p) out.push(`${where} annotation ${p}`);
    }
  }
  if (typeof doc.metadata?.name !== "string" || !dnsLabel.test(doc.metadata.name))
    out.push(`/metadata/name '${doc.metadata?.name}' is no DNS label`);
  for (const set of podSets(doc)) {
    const terms = set.template?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    for (const term of terms)
      for (const m of term.matchExpressions ?? []) {
        const p = typeof m.key === "string" ? keyProblem(m.key) : "key is no string";
        if (p) out.push(`pod set ${set.name} node affinity ${p}`);
        if (["In", "NotIn"].includes(m.operator) && !(Array.isArray(m.values) && m.values.length))
          out.push(`pod set ${set.name} node affinity '${m.key}': ${m.operator} needs values`);
      }
  }
  // Kueue (apis/kueue/v1beta2 topology_types.go; jobframework tas_validation.go): a group is two
  // pod sets, one of a single pod, asking the same topology; a group asks a topology.
  const groups = {};
  for (const set of podSets(doc)) {
    const a = set.template?.metadata?.annotations ?? {};
    const group = a["kueue.x-k8s.io/podset-group-name"];
    if (group === undefined) continue;
    (groups[group] ??= []).push({ ...set, topology: a["kueue.x-k8s.io/podset-required-topology"] ?? a["kueue.x-k8s.io/podset-preferred-topology"] });
  }
  for (const [group, sets] of Object.entries(groups)) {
    if (sets.length !== 2) out.push(`Kueue group '${group}' has ${sets.length} pod sets, not 2`);
    else if (!sets.some((s) => s.pods === 1)) out.push(`Kueue group '${group}': neither pod set is a single pod`);
    if (sets.some((s) => s.topology === undefined)) out.push(`Kueue group '${group}': a pod set asks no topology`);
    if (new Set(sets.map((s) => s.topology)).size > 1) out.push(`Kueue group '${group}': the pod sets ask different topologies`);
  }
  return out;
}

// Breakages the API server or Kueue must refuse; each applies where the document has its field.
// gpuPod: the last pod set, the one on GPUs (JobSet's workers, the Worker replicas).
const gpuPod = (d) => podSets(d).at(-1).template;
const container = (d) => gpuPod(d).spec.containers[0];
const matchExpr = (d) => gpuPod(d).spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0];
const breakages = [
  ["apiVersion of another version", (d) => { d.apiVersion = d.apiVersion.replace(/\/v.*$/, "/v9"); }],
  ["a field the API lacks in spec", (d) => { d.spec.replicas = 2; }],
  ["no metadata name", (d) => { delete d.metadata.name; }],
  ["an upper-case name", (d) => { d.metadata.name = "Llama"; }],
  ["a container without a name", (d) => { delete container(d).name; }],
  ["a command that is a string", (d) => { container(d).command = container(d).command.join(" "); }],
  ["a GPU limit that is a list", (d) => { container(d).resources.limits["nvidia.com/gpu"] = [8]; }],
  ["an env value that is a number", (d) => { container(d).env.push({ name: "N", value: 8 }); }],
  ["node affinity values that are a string", (d) => { matchExpr(d).values = "h001"; }],
  ["node affinity operator in lower case", (d) => { matchExpr(d).operator = "in"; }],
  ["a node affinity key with a space", (d) => { matchExpr(d).key = "kubernetes.io/host name"; }],
  ["a label value too long", (d) => { gpuPod(d).metadata.labels["app.kubernetes.io/instance"] = "x".repeat(64); }],
  ["JobSet: replicas a string", (d) => { d.spec.replicatedJobs[0].replicas = "1"; }],
  ["JobSet: a replicated job without a template", (d) => { delete d.spec.replicatedJobs[0].template; }],
  ["JobSet: completions a string", (d) => { d.spec.replicatedJobs[0].template.spec.completions = "1"; }],
  ["JobSet: a third pod set in a Kueue group", (d) => {
    if (!gpuPod(d).metadata.annotations?.["kueue.x-k8s.io/podset-group-name"]) throw new Error("no group");
    d.spec.replicatedJobs.push(structuredClone(d.spec.replicatedJobs.at(-1))); d.spec.replicatedJobs.at(-1).name = "extra"; }],
  ["PyTorchJob: nprocPerNode a number", (d) => { d.spec.nprocPerNode = 8; }],
  ["PyTorchJob: an unknown replica type", (d) => { d.spec.pytorchReplicaSpecs.Chief = d.spec.pytorchReplicaSpecs.Master; }],
  ["PyTorchJob: restartPolicy not a policy", (d) => { d.spec.pytorchReplicaSpecs.Master.restartPolicy = "Sometimes"; }],
  ["MPIJob: slotsPerWorker a string", (d) => { d.spec.slotsPerWorker = "8"; }],
  ["MPIJob: no Launcher", (d) => { delete d.spec.mpiReplicaSpecs.Launcher; }],
  ["MPIJob: an unknown MPI", (d) => { d.spec.mpiImplementation = "OpenMPI5"; }],
];

let failed = false;
for (const file of files) {
  let docs;
  try {
    docs = YAML.parseAllDocuments(readFileSync(file, "utf8")).map((d) => {
      if (d.errors.length) throw new Error(d.errors.map((e) => e.message).join("; "));
      return d.toJS();
    });
  } catch (e) {
    console.log(`${file}: not YAML: ${e.message}`);
    failed = true;
    continue;
  }
  docs.forEach((doc, i) => {
    const where = `${file} [${i}] ${doc?.kind}/${doc?.metadata?.name}`;
    if (!mutations) {
      const p = problems(doc);
      console.log(p.length ? p.map((s) => `${where}: ${s}`).join("\n") : `${where}: ok`);
      failed ||= p.length > 0;
      return;
    }
    let tried = 0;
    for (const [what, breakIt] of breakages) {
      const kind = what.match(/^(\w+): /);
      if (kind && kind[1] !== doc.kind) continue;
      const copy = structuredClone(doc);
      try {
        breakIt(copy);
      } catch {
        continue;  // the document lacks the field this breaks
      }
      ++tried;
      if (problems(copy).length === 0) {
        console.log(`${where}: ${what}: passed, but must fail`);
        failed = true;
      }
    }
    console.log(`${where}: ${tried} breakages, each refused`);
  });
}
process.exit(failed ? 1 : 0);
