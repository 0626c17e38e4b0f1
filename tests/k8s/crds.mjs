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

export const jobsetSchema = {
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "kind", "metadata", "spec"],
  properties: {
    apiVersion: { const: "jobset.x-k8s.io/v1alpha2" },
    kind: { const: "JobSet" },
    metadata: objectMeta,
    spec: {
      type: "object",
      additionalProperties: false,
      properties: {
        replicatedJobs: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["name", "template"],
            properties: {
              name: { type: "string", minLength: 1 },
              groupName: { type: "string" },
              template: template("JobTemplateSpec"),
              replicas: count,
              dependsOn: { type: "array" },
            },
          },
        },
        network: {
          type: "object",
          additionalProperties: false,
          properties: {
            enableDNSHostnames: { type: "boolean" },
            subdomain: { type: "string" },
            publishNotReadyAddresses: { type: "boolean" },
          },
        },
        successPolicy: { type: "object" },
        failurePolicy: {
          type: "object",
          additionalProperties: false,
          properties: { maxRestarts: int32, restartStrategy: { type: "string" }, rules: { type: "array" } },
        },
        startupPolicy: { type: "object" },
        suspend: { type: "boolean" },
        coordinator: { type: "object" },
        managedBy: { type: "string" },
        ttlSecondsAfterFinished: int32,
        volumeClaimPolicies: { type: "array" },
      },
    },
  },
};

const runPolicy = {
  type: "object",
  additionalProperties: false,
  properties: {
    cleanPodPolicy: { enum: ["All", "Running", "None"] },
    ttlSecondsAfterFinished: int32,
    activeDeadlineSeconds: { type: "integer" },
    backoffLimit: int32,
    schedulingPolicy: { type: "object" },
    suspend: { type: "boolean" },
    managedBy: { type: "string" },
  },
};

const replicaSpec = {
  type: "object",
  additionalProperties: false,
  properties: {
    replicas: count,
    template: template("PodTemplateSpec"),
    restartPolicy: { enum: ["Always", "OnFailure", "Never", "ExitCode"] },
  },
};

export const pytorchjobSchema = {
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "kind", "metadata", "spec"],
  properties: {
    apiVersion: { const: "kubeflow.org/v1" },
    kind: { const: "PyTorchJob" },
    metadata: objectMeta,
    spec: {
      type: "object",
      additionalProperties: false,
      required: ["pytorchReplicaSpecs"],
      properties: {
        runPolicy,
        elasticPolicy: { type: "object" },
        nprocPerNode: { type: "string" },
        pytorchReplicaSpecs: {
          type: "object",
          propertyNames: { enum: ["Master", "Worker"] },
          additionalProperties: replicaSpec,
        },
      },
    },
  },
};

export const mpijobSchema = {
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "kind", "metadata", "spec"],
  properties: {
    apiVersion: { const: "kubeflow.org/v2beta1" },
    kind: { const: "MPIJob" },
    metadata: objectMeta,
    spec: {
      type: "object",
      additionalProperties: false,
      required: ["mpiReplicaSpecs"],
      properties: {
        slotsPerWorker: int32,
        runLauncherAsWorker: { type: "boolean" },
        runPolicy,
        mpiReplicaSpecs: {
          type: "object",
          propertyNames: { enum: ["Launcher", "Worker"] },
          required: ["Launcher"],
          additionalProperties: replicaSpec,
        },
        sshAuthMountPath: { type: "string" },
        launcherCreationPolicy: { enum: ["AtStartup", "WaitForWorkersReady"] },
        mpiImplementation: { enum: ["OpenMPI", "Intel", "MPICH"] },
      },
    },
  },
};
