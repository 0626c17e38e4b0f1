#include "base/file_io.h"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/limits.h"
#include "base/units.h"

namespace topoplan {

Result<std::string> text_read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error_in(path, std::string("cannot read: ") + std::strerror(errno));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return error_in(path, "cannot read: is a directory");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<uintmax_t>(limits::kMaxFileBytes))
    return error_in(path, format_bytes(static_cast<double>(size)) + " is more than the " +
                              format_bytes(static_cast<double>(limits::kMaxFileBytes)) + " limit on input files");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string file_stem(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return name.substr(0, name.find('.'));
}

Result<void> text_write_file(const std::string& path, const std::string& text) {
  // A regular file is written beside itself and renamed over, so a process killed mid-write (a
  // launcher's SIGKILL) leaves the old file or the new one, never half of one; /dev/stdout and
  // other special files are written in place.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  const bool atomic = !std::filesystem::exists(st) || std::filesystem::is_regular_file(st);
  const std::string target = atomic ? path + ".tmp" + std::to_string(::getpid()) : path;
  {
    std::ofstream f(target, std::ios::binary);
    if (!f) return error_in(path, std::string("cannot write: ") + std::strerror(errno));
    f << text;
    f.close();
    if (!f) {
      if (atomic) std::filesystem::remove(target, ec);
      return error_in(path, "write failed");
    }
  }
  if (atomic && std::rename(target.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::filesystem::remove(target, ec);
    return error_in(path, "cannot write: " + why);
  }
  return {};
}

}  // namespace topoplan
