import Testing
import Metrics

@Test func rendersPrometheusTextFormat() {
    let registry = Registry()
    let readings = registry.counter("whereabouts_readings_total", "Readings accepted.", labels: ["node"])
    let online = registry.gauge("whereabouts_nodes_online", "Nodes online.")
    let latency = registry.histogram("whereabouts_latency_seconds", "Latency.", buckets: [0.001, 0.01])
    readings.labels("kitchen").add(3)
    readings.labels("hall \"2\"").add()
    online.set(2)
    latency.observe(0.0005)
    latency.observe(0.005)
    latency.observe(1)
    registry.collect("whereabouts_queue_depth", "Queue depth.") { [([], 7)] }
    #expect(registry.render() == """
    # HELP whereabouts_readings_total Readings accepted.
    # TYPE whereabouts_readings_total counter
    whereabouts_readings_total{node="hall \\"2\\""} 1
    whereabouts_readings_total{node="kitchen"} 3
    # HELP whereabouts_nodes_online Nodes online.
    # TYPE whereabouts_nodes_online gauge
    whereabouts_nodes_online 2
    # HELP whereabouts_latency_seconds Latency.
    # TYPE whereabouts_latency_seconds histogram
    whereabouts_latency_seconds_bucket{le="0.001"} 1
    whereabouts_latency_seconds_bucket{le="0.01"} 2
    whereabouts_latency_seconds_bucket{le="+Inf"} 3
    whereabouts_latency_seconds_sum 1.0055
    whereabouts_latency_seconds_count 3
    # HELP whereabouts_queue_depth Queue depth.
    # TYPE whereabouts_queue_depth gauge
    whereabouts_queue_depth 7

    """)
}

@Test func countersAreSafeAcrossThreads() async {
    let registry = Registry()
    let counter = registry.counter("c_total", "c").labels()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 { group.addTask { for _ in 0..<10_000 { counter.add() } } }
    }
    #expect(counter.current == 80_000)
}
