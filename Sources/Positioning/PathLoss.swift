/// The log-distance path-loss model: `rssi = txRef - 10·n·log10(d) - walls`.
///
/// `txRef` is the RSSI at 1 m (per device, from the frame, or the site default), `n` the
/// site's `absorption`, and `walls` the summed attenuation of the walls the line of sight
/// crosses. A node's `rx_adj` is added to its RSSI before the model sees it.
public struct PathLoss: Sendable, Equatable {
    /// Path-loss exponent (`absorption` in the site file).
    public var exponent: Double
    /// Distances below this are treated as this, by the model and every solver: the model is
    /// meaningless in the near field, and within a few decimetres the antennas' own offsets
    /// (on the node, on the carrier) are as large as the distance itself.
    public static let minimumDistance = 0.3

    public init(exponent: Double) { self.exponent = max(exponent, 0.5) }

    /// The RSSI expected at `distance` metres behind `walls` dB of walls.
    public func rssi(distance: Double, txRef: Double, walls: Double = 0) -> Double {
        txRef - slope * Elementary.log(max(distance, Self.minimumDistance)) - walls
    }

    /// The distance an RSSI implies, in metres.
    public func distance(rssi: Double, txRef: Double, walls: Double = 0) -> Double {
        max(Elementary.exp((txRef - walls - rssi) / slope), Self.minimumDistance)
    }

    /// `10·n / ln 10`: the model's RSSI falls by `slope / d` dB per metre at distance `d`.
    public var slope: Double { 10 * exponent / 2.302585092994046 }
}

