#include "app/cli/Cli.h"

int main(int argc, char** argv) { return fuselab::runCli(argc, argv); }
