/// Devices with readings not yet solved, by the event time their next solve falls due.
///
/// `Engine.advance` used to walk every queued device at every message to find the due ones.
/// With 10,000 tags each heard many times a second, every device is queued all the time, so
/// each 200-reading message read 10,000 devices' states (a cache miss each): at the end-to-end
/// ladder's top that walk was the work queue's largest cost (perf), and it grew with the site.
/// A binary min-heap hands out only the devices that are due.
struct DueQueue: Sendable {
    private struct Entry: Sendable {
        var due: Double
        var device: Int32
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }

    /// The earliest due time; +infinity when no device is queued.
    var earliest: Double { heap.first?.due ?? .infinity }

    mutating func push(_ device: Int32, due: Double) {
        heap.append(Entry(due: due, device: device))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].due < heap[parent].due else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the device due earliest (the queue must not be empty).
    mutating func pop() -> (device: Int32, due: Double) {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let left = 2 * i + 1, right = left + 1
                var least = i
                if left < heap.count && heap[left].due < heap[least].due { least = left }
                if right < heap.count && heap[right].due < heap[least].due { least = right }
                guard least != i else { break }
                heap.swapAt(i, least)
                i = least
            }
        }
        return (top.device, top.due)
    }
}
