/// A point on a floor plan, in metres.
public struct Point2: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}

/// A point in a building, in metres; `z` is height above the floor's origin.
public struct Point3: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    public var xy: Point2 { Point2(x, y) }
}
