internal import CBluetooth
#if canImport(Glibc)
import Glibc
#endif

/// One Bluetooth HCI socket (`AF_BLUETOOTH`, `BTPROTO_HCI`); owns its descriptor and closes
/// it when released.
final class HCISocket {
    let fd: Int32
    /// `hci0`, `HCI` (no device) or `monitor`: for errors.
    let label: String

    private init(fd: Int32, label: String) {
        self.fd = fd
        self.label = label
    }

    deinit { close(fd) }

    /// A raw socket bound to adapter `index`; `nil` binds to no adapter, which is where the
    /// kernel sends its device events.
    static func raw(index: UInt16?) throws(HCIError) -> HCISocket {
        try open(device: index ?? UInt16(HCI_DEV_NONE), channel: UInt16(HCI_CHANNEL_RAW),
                 label: index.map { "hci\($0)" } ?? "HCI")
    }

    /// The monitor channel: a copy of every controller's traffic, as `btmon` sees it.
    /// Needs `CAP_NET_RAW`.
    static func monitor() throws(HCIError) -> HCISocket {
        try open(device: UInt16(HCI_DEV_NONE), channel: UInt16(HCI_CHANNEL_MONITOR), label: "monitor")
    }

    private static func open(device: UInt16, channel: UInt16, label: String) throws(HCIError) -> HCISocket {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { throw .system("open \(label) socket") }
        let socket = HCISocket(fd: fd, label: label)
        var address = sockaddr_hci(hci_family: sa_family_t(AF_BLUETOOTH), hci_dev: device, hci_channel: channel)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else { throw .system("bind \(label)") }
        return socket
    }

    func filter() throws(HCIError) -> EventFilter {
        var f = hci_filter()
        var length = socklen_t(MemoryLayout<hci_filter>.size)
        guard getsockopt(fd, SOL_HCI, HCI_FILTER, &f, &length) == 0 else { throw .system("read \(label) HCI filter") }
        return EventFilter(typeMask: f.type_mask, eventMask: f.event_mask, opcode: f.opcode)
    }

    func setFilter(_ filter: EventFilter) throws(HCIError) {
        var f = hci_filter(type_mask: filter.typeMask, event_mask: filter.eventMask, opcode: filter.opcode)
        guard setsockopt(fd, SOL_HCI, HCI_FILTER, &f, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .system("set \(label) HCI filter")
        }
    }

    /// Writes a command packet; the kernel queues it for the controller.
    func send(_ command: HCICommand) throws(HCIError) {
        let packet = command.packet
        while true {
            let written = packet.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written == packet.count { return }
            guard written < 0, errno == EINTR else { throw .system("\(label): send \(command.name)") }
        }
    }

    /// Reads one packet (a datagram) into `buffer`; 0 when none is waiting.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(HCIError) -> Int {
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN: return 0
            default: throw .system("\(label): read")
            }
        }
    }
}

/// Whether adapter `index` is up, from the kernel's device info (`HCIGETDEVINFO`).
func adapterIsUp(index: UInt16) throws(HCIError) -> Bool {
    var info = hci_dev_info()
    guard hci_devinfo(Int32(index), &info) == 0 else { throw .system("hci\(index): device info") }
    return info.flags & (1 << UInt32(HCI_UP)) != 0
}

/// The index of the registered adapter with this address (`AA:BB:CC:DD:EE:FF`), up or down.
/// libbluetooth's `hci_devid` only finds adapters that are up, and the kernel reports an
/// adapter it powered on by itself (auto-off pending) as down, so a just re-plugged adapter
/// would read "no such device" instead of "down".
func adapterIndex(address: String) throws(HCIError) -> UInt16 {
    var wanted = bdaddr_t()
    guard str2ba(address, &wanted) == 0 else { throw HCIError(.badAdapterName, "adapter '\(address)'") }
    for index in 0..<maximumAdapters {
        var info = hci_dev_info()
        guard hci_devinfo(Int32(index), &info) == 0 else { continue }
        if withUnsafeBytes(of: &info.bdaddr, { a in withUnsafeBytes(of: &wanted) { a.elementsEqual($0) } }) { return index }
    }
    throw .system("find adapter \(address)", ENODEV)
}

/// Adapter indexes are handed out lowest-free-first, so real ones stay far below this.
private let maximumAdapters: UInt16 = 32
