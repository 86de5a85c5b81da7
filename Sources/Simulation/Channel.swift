import Wire
import SiteModel

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
package struct Channel: Sendable {
    package let effects: ChannelEffects
    package let world: World
    /// 10·n, for `10·n·log10(d)`.
    package let slope: Double
    /// Per node: its receiver offset (dB) and one shadowing field per floor.
    package let rxOffsets: [Double]
    let fields: [[ShadowingField]]

    /// The mean RSSI at node `n` of a device sending `txPower` at 1 m from `state`, before
    /// fading: path loss, walls or floors between, shadowing, the carrier's body, the
    /// node's receiver offset.
    package func meanRSSI(_ state: Track.State, txPower: Double, bodyLoss: Double, node n: Int) -> Double {
        // Each term in the order it was always added, so every draw's rounding stays the same.
        var rssi = txPower + rxOffsets[n] - pathLoss(state.position, node: n)
        rssi -= obstruction(state.position.xy, floor: state.floor, node: n)
        rssi += shadowing(state.position.xy, floor: state.floor, node: n)
        rssi -= body(state, bodyLoss: bodyLoss, node: n)
        return rssi
    }

    /// `10·n·log10(d)`, the distance `d` to node `n` (3-D) at least 0.1 m.
    package func pathLoss(_ p: Point3, node n: Int) -> Double {
        let node = world.nodePoints[n]
        let dx = node.x - p.x, dy = node.y - p.y, dz = node.z - p.z
        let horizontal = (dx * dx + dy * dy).squareRoot()
        let distance = max((horizontal * horizontal + dz * dz).squareRoot(), 0.1)
        return slope * Elementary.log10(distance)
    }

    /// dB lost between `p` on `floor` and node `n`: the walls crossed when the node stands on
    /// that floor, else the floors between.
    package func obstruction(_ p: Point2, floor: Int, node n: Int) -> Double {
        let nodeFloor = world.nodeFloors[n]
        if nodeFloor == floor {
            return world.wallLoss(floor, p, world.nodePoints[n].xy, doorWidth: effects.doorWidth)
        }
        return effects.floorLoss * Double(abs(world.levels[nodeFloor] - world.levels[floor]))
    }

    /// The shadowing (dB) of node `n`'s field for `floor` at `p`.
    package func shadowing(_ p: Point2, floor: Int, node n: Int) -> Double {
        fields[n][floor].value(at: p)
    }

    /// dB the carrier's body takes from node `n`: all of `bodyLoss` when the node is straight
    /// behind the walker, none when ahead.
    package func body(_ state: Track.State, bodyLoss: Double, node n: Int) -> Double {
        let node = world.nodePoints[n]
        let dx = node.x - state.position.x, dy = node.y - state.position.y
        let horizontal = (dx * dx + dy * dy).squareRoot()
        guard bodyLoss > 0, horizontal > 1e-6 else { return 0 }
        let facing = (dx * state.heading.x + dy * state.heading.y) / horizontal
        return bodyLoss * (1 - facing) / 2
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
        let node = world.nodePoints[n]
        let dx = node.x - state.position.x, dy = node.y - state.position.y, dz = node.z - state.position.z
        let distance = max((dx * dx + dy * dy + dz * dz).squareRoot(), 0.1)
        let best = txPower + rxOffsets[n] - slope * Elementary.log10(distance) + 4 * effects.shadowingSD + 15
        return best < effects.sensitivity
    }
}
