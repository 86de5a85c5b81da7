import Foundation
import Testing

/// A Prometheus server from Debian's package, scraping with the shipped deploy/prometheus.yml
/// (scrape interval 1 s instead of 15 s, the test's ports and files).
private final class PrometheusServer {
    let port: Int
    let daemon: Daemon

    init(directory: URL, aggregatorPort: Int, tokenFile: URL) throws {
        port = try freePort()
        let config = try adapted(try repositoryText("deploy/prometheus.yml"), [
            ("scrape_interval: 15s", "scrape_interval: 1s"),
            ("evaluation_interval: 15s", "evaluation_interval: 1s"),
            ("/etc/prometheus/whereabouts-rules.yml", packageRoot.appendingPathComponent("deploy/prometheus-rules.yml").path),
            ("/etc/prometheus/whereabouts.token", tokenFile.path),
            ("127.0.0.1:9464", "127.0.0.1:\(aggregatorPort)"),
        ], file: "deploy/prometheus.yml")
        let file = directory.appendingPathComponent("prometheus.yml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let check = try runCommand("/usr/bin/promtool", ["check", "config", file.path])
        guard check.status == 0 else { throw HarnessError("promtool check config: \(check)") }
        daemon = try Daemon(URL(fileURLWithPath: "/usr/bin/prometheus"), [
            "--config.file=\(file.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("tsdb").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ], log: directory.appendingPathComponent("prometheus.log"))
    }

    /// The instant vector of `expr` through /api/v1/query: each series' labels and value.
    func query(_ expr: String) async throws -> [(labels: [String: String], value: Double)] {
        let data = try await api("query", ["query": expr])
        guard let result = data["result"] as? [[String: Any]] else { throw HarnessError("\(expr): no result in \(data)") }
        return result.map { series in
            let value = (series["value"] as? [Any])?.last as? String
            return (series["metric"] as? [String: String] ?? [:], value.flatMap(Double.init) ?? .nan)
        }
    }

    /// Waits until the aggregator's target is up, as Prometheus itself sees it.
    func scraped(timeout: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? await query(#"up{job="whereabouts-aggregator"}"#))?.first?.value == 1 { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// Values of `label` on series of `metric`: what Grafana's `label_values(metric, label)` lists.
    func labelValues(_ metric: String, _ label: String) async throws -> [String] {
        let url = "http://127.0.0.1:\(port)/api/v1/label/\(label)/values?match[]=\(encode(metric))"
        guard let (status, body) = await httpGet(url), status == 200,
              let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw HarnessError("label values of \(label) failed")
        }
        return object["data"] as? [String] ?? []
    }

    private func api(_ path: String, _ parameters: [String: String]) async throws -> [String: Any] {
        let query = parameters.map { "\($0.key)=\(encode($0.value))" }.joined(separator: "&")
        guard let (status, body) = await httpGet("http://127.0.0.1:\(port)/api/v1/\(path)?\(query)") else {
            throw HarnessError("Prometheus does not answer: \(daemon.log)")
        }
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        guard status == 200, object?["status"] as? String == "success", let data = object?["data"] as? [String: Any] else {
            throw HarnessError("\(parameters): HTTP \(status) \(String(decoding: body, as: UTF8.self))")
        }
        return data
    }

    /// Form encoding that Go's parser reads back exactly (a literal `+` would become a space).
    private func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? s
    }
}

@Test(.enabled(if: prometheusInstalled, "needs Debian's prometheus package; apt-get install prometheus failed here"),
      .timeLimit(.minutes(3)))
func prometheusScrapesTheAggregatorAndEveryDashboardExpressionHasData() async throws {
    let dir = try opsDirectory("prometheus")
    defer { try? FileManager.default.removeItem(at: dir) }
    // Not broker.stop(): mosquitto started from a pool thread inherits libdispatch's blocked
    // SIGTERM and never exits on it; the Broker's deinit uses SIGKILL.
    let broker = try Broker()
    let token = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    let tokenFile = dir.appendingPathComponent("token")
    try (token + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
    let httpPort = try freePort()
    let aggregator = try startAggregator(broker: broker.url, directory: dir, http: httpPort, extra: ["--http-token-file", tokenFile.path])
    let metricsURL = "http://127.0.0.1:\(httpPort)/metrics"
    #expect(await poll(timeout: 10) { aggregator.process.isRunning && canConnect(port: httpPort) }, "\(aggregator.log)")
    #expect(await httpGet(metricsURL)?.status == 401, "no token, no metrics")

    let publisher = try Collector(broker: broker, filters: [])
    try await publisher.ready()
    var feed = ReferenceFeed()
    try feed.announce(publisher.client)
    try await feed.run(publisher.client, steps: 8)
    let prometheus = try PrometheusServer(directory: dir, aggregatorPort: httpPort, tokenFile: tokenFile)

    // Traffic goes on until the test ends (cancelled then), so however slow Prometheus is to
    // start on a busy machine, every rate window the expressions are asked about has increases.
    let traffic = Task { [feed] in
        var feed = feed
        try await feed.run(publisher.client, steps: .max)
    }
    defer { traffic.cancel() }
    #expect(await prometheus.scraped(), "Prometheus never scraped the aggregator: \(prometheus.daemon.log)")
    // A few seconds of samples: each rate window ($__rate_interval = 5 s) holds several.
    try await Task.sleep(for: .seconds(6))

    try checkMetricsFormat(try #require(await httpGet(metricsURL, token: token)).body, in: dir)
    try await checkDashboardExpressions(prometheus)
    try await checkRunData(prometheus)
    traffic.cancel()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

/// The data is the run's, not just present: every node's readings, the fed faults as reasons.
private func checkRunData(_ prometheus: PrometheusServer) async throws {
    let perNode = try await prometheus.query("sum by (node) (whereabouts_readings_total)")
    #expect(Set(perNode.compactMap { $0.labels["node"] }) == ["sw", "se", "ne", "nw"])
    #expect(perNode.allSatisfy { $0.value >= 8 })
    let reasons = try await prometheus.query("whereabouts_rejected_total")
    #expect(Set(reasons.compactMap { $0.labels["reason"] }).isSuperset(of: ["malformed", "late"]))
    #expect(try await prometheus.labelValues("whereabouts_readings_total", "node").sorted() == ["ne", "nw", "se", "sw"])
}

/// `promtool check metrics` (Prometheus's own linter) passes on the aggregator's exposition.
private func checkMetricsFormat(_ body: Data, in dir: URL) throws {
    let file = dir.appendingPathComponent("metrics.txt")
    try body.write(to: file)
    let text = String(decoding: body, as: UTF8.self)
    #expect(text.contains("whereabouts_readings_total{node=\"sw\"}"))
    let lint = try runCommand("/bin/sh", ["-c", "/usr/bin/promtool check metrics < '\(file.path)'"])
    #expect(lint.status == 0 && lint.output.isEmpty && lint.errors.isEmpty, "promtool check metrics: \(lint)")
}

/// Every PromQL expression of the dashboards, as Grafana would send it, returns at least one
/// series with a number (not NaN) through Prometheus's HTTP API.
private func checkDashboardExpressions(_ prometheus: PrometheusServer) async throws {
    let grafana = GrafanaInterpolation(from: 0, to: 0, intervalMilliseconds: 1000,
                                       variables: ["__rate_interval": "5s", "node": ".*"])
    var checked = 0
    for dashboard in try GrafanaDashboard.all() {
        for query in dashboard.panelQueries {
            guard let promQL = query.promQL else { continue }
            let expr = grafana.expand(promQL)
            #expect(!expr.contains("$"), "\(query.owner): \(expr) has an unknown variable")
            let result = try await prometheus.query(expr)
            #expect(result.contains { !$0.value.isNaN }, "\(query.owner): \(expr) returned \(result)")
            checked += 1
        }
        for query in dashboard.variableQueries {
            guard let promQL = query.promQL else { continue }
            let parts = promQL.dropFirst("label_values(".count).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(promQL.hasPrefix("label_values(") && parts.count == 2, "\(query.owner): \(promQL)")
            guard parts.count == 2 else { continue }
            #expect(try await !prometheus.labelValues(parts[0], parts[1]).isEmpty, "\(query.owner): \(promQL) lists nothing")
        }
    }
    #expect(checked >= 25, "only \(checked) PromQL expressions found in the dashboards")
}
