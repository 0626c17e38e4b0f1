#include "planner/plan_files.h"

#include <filesystem>

#include "base/file_io.h"
#include "planner/plan_json.h"

namespace topoplan {

Result<PlanFiles> plan_files_write(const std::string& dir, const EmitList& what, const Cluster& c, const Router& router,
                                   const std::string& cluster_spec, const Plan& plan, const PlanRequest& request) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"-o " + dir + ": " + ec.message()};
  PlanFiles out;
  auto write = [&](const std::string& name, const std::string& text) -> Result<void> {
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (!text_write_file(path, text)) return Error{dir + "/" + name + ": cannot write"};
    out.written.push_back(path);
    return {};
  };
  if (what.plan_file)
    RETURN_IF_ERROR(write("plan.json", plan_to_json(c, router, cluster_spec, plan, request).dump(2) + "\n"));
  for (const std::string& format : what.formats) {
    Result<std::vector<EmittedFile>> files = emit(format, {c, router, plan.job, plan.layout, what.launch});
    if (!files) return Error{"--emit " + format + ": " + files.error()};
    for (const EmittedFile& f : *files) {
      RETURN_IF_ERROR(write(f.name, f.text));
      for (const std::string& note : f.notes) out.notes.push_back(f.name + ": " + note);
    }
  }
  return out;
}

}  // namespace topoplan
