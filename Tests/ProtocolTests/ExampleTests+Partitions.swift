import Foundation
import Wire

extension ProtocolExampleTests {
    /// The worked example of a device's partition: the hash, `k` and the edge's topic are what
    /// the product computes for that id and P.
    static func checkPartition(_ e: ProtocolDocument.Example) throws {
        var fields: [String: String] = [:]
        for line in e.body.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { throw DocError("not `key: value`: \(line)") }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let pText = fields["P"], let count = Int(pText), let partitions = Partitioning(count: count),
              let id = fields["id"], let hash = fields["fnv1a64"], let k = fields["k"], let topic = fields["topic"]
        else { throw DocError("expects P, id, fnv1a64, k and topic lines") }
        let made = Partitioning.fnv1a64(id)
        try require(hash == "0x" + String(made, radix: 16).leftPadded(to: 16), "FNV-1a-64 of \(id) is 0x\(String(made, radix: 16))")
        let partition = partitions.partition(of: id)
        try require(k == String(partition), "\(id) is in partition \(partition) of \(count)")
        try require(topic == Topics().nodeReadings("kitchen", partition: partition), "the edge publishes it on "
                    + Topics().nodeReadings("kitchen", partition: partition))
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
