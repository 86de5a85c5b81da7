// BLE module: see the architecture notes in README.md.
