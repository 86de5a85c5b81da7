// Storage module: see the architecture notes in README.md.
