"""fuselab: a GPU trace viewer and experiment workbench for PyTorch profiles.

The package holds the C++ executable (bin/fuselab), its capture module
(lib/fuselab/) and its assets (share/fuselab/); the `fuselab` command is
fuselab._launcher.main.
"""
