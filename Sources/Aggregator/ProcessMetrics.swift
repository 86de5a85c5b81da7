import Foundation
import Metrics

/// `process_cpu_seconds_total` and `process_resident_memory_bytes`, read from /proc when scraped.
enum ProcessMetrics {
    static func register(in registry: Registry) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        registry.collect("process_cpu_seconds_total", "User and system CPU time of this process, seconds.", type: .counter) {
            guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return [] }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return [] }
            return [([], (user + system) / ticks)]
        }
        registry.collect("process_resident_memory_bytes", "Resident memory of this process, bytes.") {
            guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return [] }
            let fields = statm.split(separator: " ")
            guard fields.count > 1, let resident = Double(fields[1]) else { return [] }
            return [([], resident * page)]
        }
    }
}
