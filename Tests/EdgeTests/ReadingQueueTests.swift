@testable import Edge
import Testing
import Wire

@Suite("ReadingQueue: bounded, oldest dropped and counted")
struct ReadingQueueTests {
    func reading(_ n: Int) -> Reading { Reading(id: "mac:\(n)", rssi: -n, t: Double(n), kind: .mac) }

    @Test func keepsOrderAndDropsTheOldestWhenFull() {
        var q = ReadingQueue(capacity: 3)
        for n in 1...5 { q.append(reading(n)) }
        #expect(q.count == 3)
        #expect(q.dropped == 2)
        var out: [Reading] = []
        q.take(max: 10, into: &out)
        #expect(out.map(\.rssi) == [-3, -4, -5])
        #expect(q.isEmpty)
    }

    @Test func restoredReadingsComeFirstAgain() {
        var q = ReadingQueue(capacity: 4)
        for n in 1...4 { q.append(reading(n)) }
        var taken: [Reading] = []
        q.take(max: 3, into: &taken)
        q.append(reading(5))
        q.restore(taken)
        #expect(q.dropped == 1)  // 1 no longer fits beside 4 and 5: the oldest goes
        var out: [Reading] = []
        q.take(max: 10, into: &out)
        #expect(out.map(\.rssi) == [-2, -3, -4, -5])
    }

    @Test func matchesAPlainArrayModelAcrossManyWraps() {
        var q = ReadingQueue(capacity: 7)
        var model: [Int] = []
        var modelDropped: UInt64 = 0
        var next = 1
        for round in 0..<200 {
            for _ in 0..<(round % 5 + 1) {
                q.append(reading(next))
                model.append(next)
                if model.count > 7 { model.removeFirst(); modelDropped += 1 }
                next += 1
            }
            var out: [Reading] = []
            let n = round % 4
            q.take(max: n, into: &out)
            #expect(out.map { -$0.rssi } == Array(model.prefix(n)))
            model.removeFirst(min(n, model.count))
        }
        #expect(q.count == model.count)
        #expect(q.dropped == modelDropped)
    }
}
