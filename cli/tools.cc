#include "cli/tool.h"

namespace topoplan::cli {

Tool topo_tool();
Tool transfer_tool();

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = {
      topo_tool(),
      transfer_tool(),
  };
  return table;
}

}  // namespace topoplan::cli
