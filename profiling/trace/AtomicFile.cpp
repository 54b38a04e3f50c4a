#include "profiling/trace/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fuselab {

namespace {
[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw FileWriteError("cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}
}  // namespace

void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(path, "creating a temporary file in " + dir.string(), errno);
  auto cleanup = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    fail(path, what, err);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      cleanup("writing", errno);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; give the file the usual permissions.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0) cleanup("flushing to disk", errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    fail(path, "closing", err);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    fail(path, "replacing the old file", err);
  }
}

}  // namespace fuselab
