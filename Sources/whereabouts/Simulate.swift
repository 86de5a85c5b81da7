import Options
import Simulation
import Wire
import SiteModel
import YAML
#if canImport(Glibc)
import Glibc
#endif

struct SimulateOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site file (nodes, floors, rooms, walls, doors).")
    static let scenario = Opt<String>.required("scenario", "FILE", help: "The scenario file (devices, paths, channel effects).")
    static let out = Opt<String>.required("out", "DIR", help: "Directory to write to; made if missing, files in it replaced.")
    static let seed = Opt<Int?>.integer("seed", "N", help: "Seed for every random draw, instead of the scenario's.", in: 0...Int.max)
    let site: String, scenario: String, out: String, seed: Int?
    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); scenario = try a.get(Self.scenario); out = try a.get(Self.out); seed = try a.get(Self.seed)
    }
}

let simulateCommand = Command(
    name: "whereabouts simulate",
    abstract: "simulate a site: captures per node, readings and ground truth",
    options: [SimulateOptions.site.option, SimulateOptions.scenario.option, SimulateOptions.out.option, SimulateOptions.seed.option],
    discussion: """
        Writes to DIR:
          <node>.btsnoop   one capture per node: LE Advertising Report events (H4, datalink 1002)
                           stamped with the node's own (offset, drifting) clock; `whereabouts decode
                           --btsnoop` and `whereabouts-edge --replay` read them
          readings.jsonl   the same readings as SPEC §2 batches, one per line, per node per 250 ms
          truth.jsonl      {"t","id","x","y","z","floor","room"} per device at 10 Hz
          manifest.json    the files, the seed, counts, and each node's and device's hidden offsets
        The same site, scenario and seed always give the same bytes.
        Exits 1 when the site or scenario has errors (each shown with its line and key).
        """)

func runSimulate(_ arguments: [String]) -> Int32 {
    runTool(simulateCommand, arguments: arguments) { args in
        let o = try SimulateOptions(args)
        let (sitePath, scenarioPath, out, seed) = (o.site, o.scenario, o.out, o.seed)
        let site = try loadSite(path: sitePath)
        let decoded = try loadScenario(path: scenarioPath)
        var scenario = decoded.scenario
        if let seed { scenario.seed = UInt64(seed) }
        // Checked against the site even when it has errors of its own, so every one shows at once.
        let (prepared, problems) = Simulation.prepare(site: site, scenario: scenario)
        let all = decoded.problems + problems
        for problem in all where problem.severity == .warning { printError("\(scenarioPath):\(problem)") }
        guard let simulation = prepared, decoded.errors.isEmpty else {
            throw FileProblemsError(path: scenarioPath, problems: all.filter { $0.severity == .error }.sorted { $0.line < $1.line })
        }
        var output = try OutputDirectory(path: out, nodes: site.nodes.map(\.name))
        let summary = simulation.run(into: &output)
        try output.finish()
        try writeFile(out + "/manifest.json", summary.manifest())
        print("simulated \(summary.duration) s, seed \(summary.seed): \(summary.devices.count) device(s), \(summary.nodes.count) node(s), "
              + "\(summary.readings) reading(s) in \(summary.batches) batch(es), \(summary.truthLines) truth line(s) → \(out)")
        return ExitCode.success
    }
}

/// Reads, parses and decodes a scenario file; throws only when it cannot be read or parsed.
func loadScenario(path: String) throws -> ScenarioDecoding {
    do {
        return Scenario.decode(try YAML.parse(contentsOf: path))
    } catch {
        throw FileProblemsError(path: path, problems: [SiteProblem(.error, line: error.line, key: "", message: error.message)])
    }
}

/// An I/O failure naming the file and the system's reason.
struct FileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(path): \(reason)" }
    init(_ path: String) { self.path = path; reason = String(cString: strerror(errno)) }
    init(_ path: String, reason: String) { self.path = path; self.reason = reason }
}

/// The simulation's files in one directory, written as the chunks come.
struct OutputDirectory: SimulationOutput {
    private var descriptors: [SimulationFile: (fd: Int32, path: String)] = [:]
    private var failure: FileError?

    /// `nodes`: the site's node names, each writing `Simulation.captureFileName` of its name.
    init(path: String, nodes: [String]) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw FileError(path) }
        var files: [(SimulationFile, String)] = [(.readings, "readings.jsonl"), (.truth, "truth.jsonl")]
        // Two nodes whose names differ only in what the file name replaces (`a/b`, `a_b`) would
        // write one file through two descriptors, each over the other's bytes.
        var owner: [String: String] = [:]
        for (n, node) in nodes.enumerated() {
            let name = Simulation.captureFileName(node)
            if let other = owner[name] {
                throw FileError(path + "/" + name, reason: "nodes '\(other)' and '\(node)' would both write this capture; rename one")
            }
            owner[name] = node
            files.append((.capture(n), name))
        }
        for (file, name) in files {
            let full = path + "/" + name
            let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw FileError(full) }
            descriptors[file] = (fd, full)
        }
    }

    mutating func write(_ bytes: [UInt8], to file: SimulationFile) {
        guard failure == nil, let (fd, path) = descriptors[file] else { return }
        if !writeAll(fd, bytes) { failure = FileError(path) }
    }

    /// Closes every file; throws the first write that failed.
    mutating func finish() throws {
        for (_, entry) in descriptors where close(entry.fd) != 0 && failure == nil { failure = FileError(entry.path) }
        descriptors = [:]
        if let failure { throw failure }
    }
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw FileError(path) }
    let ok = writeAll(fd, bytes)
    let closed = close(fd) == 0
    guard ok && closed else { throw FileError(path) }
}

/// Writes every byte, retrying short writes and interruptions.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return true }  // nothing to write
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(fd, base + offset, raw.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
