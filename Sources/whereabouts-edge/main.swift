import Options
#if canImport(Glibc)
import Glibc
#endif

let command = Command(
    name: "whereabouts-edge",
    abstract: "hear BLE advertisements and publish RSSI readings over MQTT",
    usage: ["whereabouts-edge --node NAME --broker URL (--adapter DEV | --monitor | --replay FILE | --stdin) [options]"],
    options: [
        .value("node", "NAME", help: "This node's name, as in the site file."),
        .value("broker", "URL", help: "mqtt://host[:port] or mqtts://host[:port].", default: "mqtt://127.0.0.1:1883"),
        .value("adapter", "DEV", help: "Scan with this HCI adapter (hci0 or its address)."),
        .flag("monitor", help: "Listen on the HCI monitor channel beside a running bluetoothd."),
        .value("replay", "FILE", help: "Replay a btsnoop capture through the same pipeline."),
        .flag("stdin", help: "Read H4 hex lines (hcidump -R style) from standard input."),
        .value("speed", "X", help: "Replay pacing: 1 = the capture's own timing, 0 = as fast as possible.", default: "1"),
        .flag("retime", help: "Shift replayed timestamps to now."),
        .value("qos", "0|1", help: "MQTT QoS of readings.", default: "0"),
        .flag("print", help: "Print each decoded report as a JSON line."),
        .value("config", "FILE", help: "Edge configuration file (YAML)."),
        .flag("check-config", help: "Validate the configuration and exit."),
    ])

exit(runTool(command, arguments: Array(CommandLine.arguments.dropFirst())) { args in
    _ = try args.oneOf(["adapter", "monitor", "replay", "stdin"])
    printError("whereabouts-edge: not implemented yet")
    return ExitCode.failure
})
