#include <algorithm>
#include <string>

#include "base/yaml_text.h"
#include "planner/emit/cpu_binding.h"
#include "planner/emit/formats.h"
#include "planner/emit/kubernetes_pods.h"

namespace topoplan {
namespace {

// What each worker runs: it notes the node it landed on, where the launcher's first mpirun reads
// it, then runs sshd as mpi-operator's workers do (the launcher starts ranks over ssh).
const std::vector<std::string> kWorkerCommand = {
    "sh",
    "-c",
    "printf '%s\\n' \"$NODE_NAME\" >\"${TMPDIR:-/tmp}/topoplan-node\" && exec \"$@\"",
    "sh",
    "/usr/sbin/sshd",
    "-De"};

// The launcher's script, around the plan's table of "RANK HOST SLOT DEVICE" lines:
// 1. one process per worker pod prints the pod's host name and the node it noted;
// 2. awk joins that with the operator's hostfile (pod names as mpirun knows them) and the table
//    into a rankfile that puts each rank on the pod of its planned node, bound to its planned
//    cores, and prints rank 0's pod (the rendezvous) and every rank's GPU, by rank;
// 3. mpirun starts the ranks from the rankfile; each sees only its planned GPU, as device 0, with
//    torch.distributed's RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT set.
std::string launcher_script(int workers, int ranks, const std::string& table) {
  return "set -eu\n"
         "hostfile=${OMPI_MCA_orte_default_hostfile:-/etc/mpi/hostfile}\n"
         "tmp=${TMPDIR:-/tmp}\n"
         "mpirun -np " +
         std::to_string(workers) +
         " --map-by ppr:1:node sh -c 'echo \"$(hostname) $(cat \"${TMPDIR:-/tmp}/topoplan-node\")\"' "
         ">\"$tmp/topoplan-pods\"\n"
         "awk -v rankfile=\"$tmp/topoplan.rankfile\" '\n"
         "  FNR == 1 { file++ }\n"
         "  file == 1 { pod[$2] = $1; next }\n"
         "  file == 2 { split($1, part, \".\"); fqdn[part[1]] = $1; next }\n"
         "  !($2 in pod) || !(pod[$2] in fqdn) {\n"
         "    print \"topoplan: no worker pod runs on node \" $2 \", which the plan gives rank \" $1 > "
         "\"/dev/stderr\"\n"
         "    bad = 1; exit 1\n"
         "  }\n"
         "  { print \"rank \" $1 \"=\" fqdn[pod[$2]] \" slot=\" $3 > rankfile\n"
         "    if ($1 == 0) master = fqdn[pod[$2]]\n"
         "    devices = devices sep $4; sep = \" \" }\n"
         "  END { if (bad) exit 1; print master; print devices }\n"
         "' \"$tmp/topoplan-pods\" \"$hostfile\" - >\"$tmp/topoplan-launch\" <<'RANKS'\n" +
         table +
         "RANKS\n"
         "{ read -r MASTER_ADDR; read -r TOPOPLAN_DEVICES; } <\"$tmp/topoplan-launch\"\n"
         "export MASTER_ADDR TOPOPLAN_DEVICES\n"
         "exec mpirun -np " +
         std::to_string(ranks) +
         " --rankfile \"$tmp/topoplan.rankfile\" -x MASTER_ADDR -x TOPOPLAN_DEVICES sh -c '"
         "export CUDA_VISIBLE_DEVICES=$(echo \"$TOPOPLAN_DEVICES\" | cut -d\" \" -f$((OMPI_COMM_WORLD_RANK + 1))) "
         "RANK=$OMPI_COMM_WORLD_RANK WORLD_SIZE=$OMPI_COMM_WORLD_SIZE LOCAL_RANK=0 MASTER_PORT=" +
         std::string(kTorchrunPort) +
         "; "
         "exec \"$@\"' sh \"$@\"\n";
}

}  // namespace

// A Kubeflow MPIJob (kubeflow.org/v2beta1, mpi-operator 0.4 and later, Open MPI): one Worker pod on
// each planned host, and a Launcher that runs mpirun with a rankfile it writes once it knows which
// worker pod landed on which node (pods are named by index, which Kubernetes does not tie to
// hosts). Unlike torchrun's formats it places every rank on its own, so ranks may interleave
// across hosts. The operator's hostfile (/etc/mpi/hostfile, OMPI_MCA_orte_default_hostfile) names
// the worker pods NAME-worker-I.NAME.NAMESPACE.svc, as the rankfile must.
EmitResult emit_mpijob(const EmitInput& in, const RankPlacement& placement) {
  Result<K8sPlan> plan = k8s_plan(in, placement, "mpijob");
  RETURN_IF_ERROR(plan);
  const Cluster& c = in.cluster;
  std::string table;
  const std::vector<std::string> bound = ompi_rank_slots(c, placement);
  for (size_t r = 0; r < placement.ranks.size(); ++r) {
    const RankPlace& place = placement.ranks[r];
    table += std::to_string(r) + " " + c.hosts()[static_cast<size_t>(place.host)].name + " " + bound[r] + " " +
             std::to_string(place.cuda_ordinal) + "\n";
  }
  Result<Manifest> worker = k8s_pod_template(in, *plan, k8s_nodes(*plan, 0), "worker", kWorkerCommand,
                                             Manifest::array({k8s_node_name_env()}));
  RETURN_IF_ERROR(worker);
  int slots = 0;
  for (int h : plan->hosts) slots = std::max(slots, placement.ranks_on[static_cast<size_t>(h)]);
  const int ranks = static_cast<int>(placement.ranks.size());
  std::vector<std::string> command = {"sh", "-c", launcher_script(static_cast<int>(plan->hosts.size()), ranks, table),
                                      "sh"};
  command.insert(command.end(), in.launch.command.begin(), in.launch.command.end());
  // The launcher needs no GPU and may run anywhere; it carries no instance label, which the
  // workers' anti-affinity would match.
  Manifest launcher = {
      {"spec",
       {{"restartPolicy", "Never"},
        {"containers", Manifest::array({{{"name", "launcher"}, {"image", in.launch.image}, {"command", command}}})}}}};
  Manifest job = {{"apiVersion", "kubeflow.org/v2beta1"},
                  {"kind", "MPIJob"},
                  {"metadata", k8s_object_metadata(in, *plan)},
                  {"spec",
                   {{"slotsPerWorker", slots},
                    {"mpiImplementation", "OpenMPI"},
                    {"runPolicy", {{"cleanPodPolicy", "Running"}, {"backoffLimit", 0}}},
                    {"mpiReplicaSpecs",
                     {{"Launcher", {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", std::move(launcher)}}},
                      {"Worker",
                       {{"replicas", static_cast<int>(plan->hosts.size())},
                        {"restartPolicy", "Never"},
                        {"template", std::move(*worker)}}}}}}}};
  std::string text = k8s_preamble("mpijob", in, placement, *plan);
  text += "# apply: kubectl apply -f mpijob.yaml (with Kubeflow's mpi-operator installed; workers run sshd)\n";
  return std::vector<EmittedFile>{{"mpijob.yaml", text + yaml_text(job)}};
}

}  // namespace topoplan
