import SiteModel

/// The straight-line distance between two points (m), as the engine measures it.
func distance(_ a: Point3, _ b: Point3) -> Double {
    let dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z
    return (dx * dx + dy * dy + dz * dz).squareRoot()
}
