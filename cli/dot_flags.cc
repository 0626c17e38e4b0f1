#include "cli/dot_flags.h"

#include "base/file_io.h"

namespace topoplan::cli {

void dot_flags_add(CLI::App& app, DotFlags& flags, const std::string& help) {
  CLI::Option* dot = app.add_option("--dot", flags.file, help);
  app.add_option("--dot-hosts", flags.hosts,
                 "collapse: a host is one node, and hosts under one leaf group fold into one once a rank would be "
                 "too wide (default); expand: every GPU, NIC and switch of each host")
      ->needs(dot);
}

Result<void> dot_write(const std::string& path, const Cluster& c, const DotLoad& load, DotHosts hosts) {
  return text_write_file(path, save_cluster_dot(c, load, hosts));
}

}  // namespace topoplan::cli
