#include "app/Cli.h"

int main(int argc, char** argv) { return fuselab::runCli(argc, argv); }
