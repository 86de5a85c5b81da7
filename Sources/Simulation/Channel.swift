import Wire

/// Log-normal shadowing that is correlated in space: a fixed random field over the floor
/// plan, so a device standing still sees the same bias from a node for as long as it stays,
/// and two nearby spots see similar ones.
///
/// The field is a sum of random cosines (random Fourier features) with wave vectors drawn
/// from a normal distribution: a stationary Gaussian field with exactly the standard
/// deviation asked for and correlation `exp(-d² / 2L²)` at distance `d`.
struct ShadowingField: Sendable {
    static let components = 24
    private var waves: [(kx: Double, ky: Double, phase: Double)] = []
    private let amplitude: Double

    init(sd: Double, correlation: Double, rng: inout RandomStream) {
        amplitude = sd * (2 / Double(Self.components)).squareRoot()
        for _ in 0..<Self.components {
            waves.append((rng.gaussian() / correlation, rng.gaussian() / correlation, rng.uniform(0...Elementary.twoPi)))
        }
    }

    /// The shadowing in dB at `p`.
    func value(at p: Point2) -> Double {
        guard amplitude > 0 else { return 0 }
        var sum = 0.0
        for w in waves { sum += Elementary.cos(w.kx * p.x + w.ky * p.y + w.phase) }
        return amplitude * sum
    }
}

/// The radio channel from a device to one node: the mean received power and the draw of
/// one packet.
struct Channel: Sendable {
    let effects: ChannelEffects
    let world: World
    /// 10·n, for `10·n·log10(d)`.
    let slope: Double
    /// Per node: its receiver offset (dB) and one shadowing field per floor.
    let rxOffsets: [Double]
    let fields: [[ShadowingField]]

    /// The mean RSSI at node `n` of a device sending `txPower` at 1 m from `state`, before
    /// fading: path loss, walls or floors between, shadowing, the carrier's body, the
    /// node's receiver offset.
    func meanRSSI(_ state: Track.State, txPower: Double, bodyLoss: Double, node n: Int) -> Double {
        let node = world.site.nodes[n]
        let dx = node.point.x - state.position.x, dy = node.point.y - state.position.y, dz = node.point.z - state.position.z
        let horizontal = (dx * dx + dy * dy).squareRoot()
        let distance = max((horizontal * horizontal + dz * dz).squareRoot(), 0.1)
        var rssi = txPower + rxOffsets[n] - slope * Elementary.log10(distance)
        let nodeFloor = world.nodeFloors[n]
        if nodeFloor == state.floor {
            rssi -= world.wallLoss(state.floor, state.position.xy, node.point.xy, doorWidth: effects.doorWidth)
        } else {
            rssi -= effects.floorLoss * Double(abs(world.levels[nodeFloor] - world.levels[state.floor]))
        }
        rssi += fields[n][state.floor].value(at: state.position.xy)
        // The body is between phone and node when the node is behind the walker.
        if bodyLoss > 0, horizontal > 1e-6 {
            let facing = (dx * state.heading.x + dy * state.heading.y) / horizontal
            rssi -= bodyLoss * (1 - facing) / 2
        }
        return rssi
    }

    /// One packet through the channel: Rician fading around `mean`, loss that grows as the
    /// signal weakens (so with distance), whole dBm, nothing below the sensitivity.
    /// Draws the same count of numbers whatever happens, so streams stay aligned.
    func receive(mean: Double, rng: inout RandomStream) -> Int? {
        let g1 = rng.gaussian(), g2 = rng.gaussian(), u = rng.uniform()
        var rssi = mean
        if let k = effects.ricianK {
            let lineOfSight = (k / (k + 1)).squareRoot(), scatter = (1 / (2 * (k + 1))).squareRoot()
            let re = lineOfSight + scatter * g1, im = scatter * g2
            rssi += 10 * Elementary.log10(max(re * re + im * im, 1e-12))
        }
        let lossChance = effects.lossBase + (1 - effects.lossBase) / (1 + Elementary.exp((mean - effects.lossMidRSSI) / effects.lossWidth))
        guard u >= lossChance else { return nil }
        let whole = rssi.rounded()
        guard whole >= effects.sensitivity else { return nil }
        return Int(min(whole, 20))
    }

    /// Whether node `n` cannot hear a device at `state` even on its luckiest packet, so the
    /// walls and fields need not be computed.
    func outOfRange(_ state: Track.State, txPower: Double, node n: Int) -> Bool {
        let node = world.site.nodes[n]
        let dx = node.point.x - state.position.x, dy = node.point.y - state.position.y, dz = node.point.z - state.position.z
        let distance = max((dx * dx + dy * dy + dz * dz).squareRoot(), 0.1)
        let best = txPower + rxOffsets[n] - slope * Elementary.log10(distance) + 4 * effects.shadowingSD + 15
        return best < effects.sensitivity
    }
}
