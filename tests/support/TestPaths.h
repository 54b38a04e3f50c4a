// Paths the tests use: the shared fixtures and a fresh scratch folder.
#pragma once

#include <filesystem>
#include <string>

namespace fuselab::test {

std::filesystem::path fixture(const std::string& name);  // in ../shared/fixtures/kineto-h100-torch2.11
// ../shared/fixtures/kineto-multirank-hta: two ranks of a 128-rank NCCL job.
std::filesystem::path multirankFixtureDir();
// ../shared/fixtures/nccl-2gpu-fuselab: our own two-GPU NCCL capture (no
// communication fields on record_param_comms; rank 1 sleeps 3 ms per step).
std::filesystem::path ncclFuselabFixtureDir();
// tests/data/NAME: runs kept with the tests (each folder's README says how they were made).
std::filesystem::path dataDir(const std::string& name);
std::filesystem::path scratchDir(const std::string& test_name);  // empty folder under the build tree
std::string pythonExe();  // the Python that has torch (and HTA after scripts/setup --tests)

}  // namespace fuselab::test
