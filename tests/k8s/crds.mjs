// The outer layers of the custom resources topoplan writes, as JSON Schemas written from each
// project's published API types; the pod and job templates inside them are Kubernetes' own types,
// which validate.mjs checks with kubernetes-models' schemas. Strict: a field the API does not
// declare is an error, as `kubectl apply --validate=strict` makes it.
//   JobSet: sigs.k8s.io/jobset, api/jobset/v1alpha2/jobset_types.go (JobSetSpec, ReplicatedJob,
//     Network, FailurePolicy).
//   PyTorchJob: github.com/kubeflow/training-operator 1.x, pkg/apis/kubeflow.org/v1
//     (pytorch_types.go; common_types.go for ReplicaSpec, RunPolicy and RestartPolicy).
//   MPIJob: github.com/kubeflow/mpi-operator, pkg/apis/kubeflow/v2beta1 (types.go: MPIJobSpec,
//     RunPolicy, ReplicaSpec; MPIImplementation's values).

const int32 = { type: "integer", minimum: -2147483648, maximum: 2147483647 };
const count = { type: "integer", minimum: 0, maximum: 2147483647 };
const objectMeta = { type: "object" };  // checked by kubernetes-models' ObjectMeta
const template = (model) => ({ type: "object", "x-template": model });
// An object of the API: apiVersion, kind, metadata and a spec, strict at every level written here.
const strict = (properties, required) => ({ type: "object", additionalProperties: false, required, properties });
const resource = (apiVersion, kind, spec) =>
  strict({ apiVersion: { const: apiVersion }, kind: { const: kind }, metadata: objectMeta, spec }, [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
  ]);

export const jobsetSchema = resource(
  "jobset.x-k8s.io/v1alpha2",
  "JobSet",
  strict({
    replicatedJobs: {
      type: "array",
      items: strict(
        {
          name: { type: "string", minLength: 1 },
          groupName: { type: "string" },
          template: template("JobTemplateSpec"),
          replicas: count,
          dependsOn: { type: "array" },
        },
        ["name", "template"],
      ),
    },
    network: strict({
      enableDNSHostnames: { type: "boolean" },
      subdomain: { type: "string" },
      publishNotReadyAddresses: { type: "boolean" },
    }),
    successPolicy: { type: "object" },
    failurePolicy: strict({ maxRestarts: int32, restartStrategy: { type: "string" }, rules: { type: "array" } }),
    startupPolicy: { type: "object" },
    suspend: { type: "boolean" },
    coordinator: { type: "object" },
    managedBy: { type: "string" },
    ttlSecondsAfterFinished: int32,
    volumeClaimPolicies: { type: "array" },
  }),
);

const runPolicy = strict({
  cleanPodPolicy: { enum: ["All", "Running", "None"] },
  ttlSecondsAfterFinished: int32,
  activeDeadlineSeconds: { type: "integer" },
  backoffLimit: int32,
  schedulingPolicy: { type: "object" },
  suspend: { type: "boolean" },
  managedBy: { type: "string" },
});

// A map of replica types (`types`; those `required` must be there) to ReplicaSpecs.
const replicaSpecs = (types, required = []) => ({
  type: "object",
  propertyNames: { enum: types },
  required,
  additionalProperties: strict({
    replicas: count,
    template: template("PodTemplateSpec"),
    restartPolicy: { enum: ["Always", "OnFailure", "Never", "ExitCode"] },
  }),
});

export const pytorchjobSchema = resource(
  "kubeflow.org/v1",
  "PyTorchJob",
  strict(
    {
      runPolicy,
      elasticPolicy: { type: "object" },
      nprocPerNode: { type: "string" },
      pytorchReplicaSpecs: replicaSpecs(["Master", "Worker"]),
    },
    ["pytorchReplicaSpecs"],
  ),
);

export const mpijobSchema = resource(
  "kubeflow.org/v2beta1",
  "MPIJob",
  strict(
    {
      slotsPerWorker: int32,
      runLauncherAsWorker: { type: "boolean" },
      runPolicy,
      mpiReplicaSpecs: replicaSpecs(["Launcher", "Worker"], ["Launcher"]),  // validation.go: a launcher
      sshAuthMountPath: { type: "string" },
      launcherCreationPolicy: { enum: ["AtStartup", "WaitForWorkersReady"] },
      mpiImplementation: { enum: ["OpenMPI", "Intel", "MPICH"] },
    },
    ["mpiReplicaSpecs"],
  ),
);
