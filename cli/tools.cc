#include "cli/tool.h"

namespace topoplan::cli {

Tool topo_tool();
Tool transfer_tool();
Tool groups_tool();
Tool collective_tool();
Tool score_tool();
Tool plan_tool();
Tool advise_tool();
Tool replan_tool();
Tool slurm_tool();
Tool review_tool();
Tool explain_tool();
Tool compare_tool();
Tool calibrate_tool();
Tool import_tool();
Tool discover_tool();
Tool observe_tool();
Tool traffic_tool();
Tool contention_tool();

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = {
      plan_tool(),       advise_tool(),   replan_tool(),   slurm_tool(),   review_tool(),     explain_tool(),
      contention_tool(), compare_tool(),  observe_tool(),  traffic_tool(), calibrate_tool(),  topo_tool(),
      import_tool(),     discover_tool(), transfer_tool(), groups_tool(),  collective_tool(), score_tool(),
  };
  return table;
}

}  // namespace topoplan::cli
