import Options
#if canImport(Glibc)
import Glibc
#endif

let command = Command(
    name: "whereabouts-aggregator",
    abstract: "fuse readings from every node into positions, rooms and zone events",
    usage: ["whereabouts-aggregator --site FILE [--broker URL] [--db FILE] [--http ADDR:PORT] [--config FILE]"],
    options: [
        .value("site", "FILE", help: "The site file (YAML)."),
        .value("broker", "URL", help: "mqtt://host[:port] or mqtts://host[:port].", default: "mqtt://127.0.0.1:1883"),
        .value("db", "FILE", help: "SQLite database for tracks and visits."),
        .value("http", "ADDR:PORT", help: "Serve /metrics and /healthz here.", default: "127.0.0.1:9464"),
        .value("config", "FILE", help: "Aggregator configuration file (YAML)."),
    ])

exit(runTool(command, arguments: Array(CommandLine.arguments.dropFirst())) { args in
    _ = try args.require("site")
    printError("whereabouts-aggregator: not implemented yet")
    return ExitCode.failure
})
