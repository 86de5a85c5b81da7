/// The queued writes in order: appended at the tail, taken from the head in batches.
///
/// Taking moves a head index instead of shifting the array; the taken prefix is dropped once
/// it is most of the storage, so both ends cost O(1) amortised however deep a backlog gets.
struct WriteQueue {
    private var storage: [Write] = []
    private var head = 0

    init(reserving capacity: Int) { storage.reserveCapacity(capacity) }

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    mutating func append(_ write: Write) { storage.append(write) }

    /// Moves up to `limit` writes from the head to the end of `buffer`.
    mutating func take(upTo limit: Int, into buffer: inout [Write]) {
        if head == 0 && buffer.isEmpty && storage.count <= limit {
            swap(&storage, &buffer)  // the usual case: hand the whole array over, no copy
            return
        }
        let taken = min(limit, count)
        buffer.append(contentsOf: storage[head..<head + taken])
        head += taken
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4_096 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
