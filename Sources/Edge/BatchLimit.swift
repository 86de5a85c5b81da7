/// How many readings the edge puts in one batch while the broker limits its packet size
/// (MQTT 5 says so in its CONNACK; libmosquitto refuses a larger publish before sending it).
///
/// It starts at `batchMax`. A batch refused as too large halves the limit (the same batch
/// would be refused again, forever); a reading refused on its own cannot be cut and is
/// dropped, and the limit goes back to `batchMax`, since that reading may have been all that
/// made the batches too large. After `growAfter` batches sent in a row below `batchMax` the
/// limit doubles: readings differ in size, so a limit cut for a few large ones would
/// otherwise stay small for the whole connection. Probing costs little, as a refusal happens
/// before anything is sent. A new connection (maybe to another broker) starts afresh.
struct BatchLimit: Equatable {
    /// What to do with a batch the broker refused as too large.
    enum Refusal: Equatable {
        /// Put the readings back; the next batches take at most the new `value`.
        case split
        /// A single reading too large on its own: drop it and count it as lost.
        case drop
    }

    static let growAfter = 32

    let batchMax: Int
    private(set) var value: Int
    private var sentInARow = 0

    init(batchMax: Int) {
        precondition(batchMax >= 1, "batch_max is at least 1")
        self.batchMax = batchMax
        value = batchMax
    }

    /// A new connection: the broker's limit may have changed.
    mutating func reset() {
        value = batchMax
        sentInARow = 0
    }

    /// A batch went out.
    mutating func sent() {
        guard value < batchMax else { return }
        sentInARow += 1
        if sentInARow >= Self.growAfter {
            sentInARow = 0
            value = min(batchMax, value * 2)
        }
    }

    /// A batch of `count` readings was refused as larger than the broker takes.
    mutating func refused(count: Int) -> Refusal {
        sentInARow = 0
        guard count > 1 else {
            value = batchMax
            return .drop
        }
        value = count / 2
        return .split
    }
}
