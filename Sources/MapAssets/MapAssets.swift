/// The map's page: its files, embedded in the binary at build time (SwiftPM's `embedInCode`),
/// so the aggregator ships as one file and the page always matches its API.
public enum MapAssets {
    /// Each file of `web/` by name. A file added there must be listed here (a test checks).
    public static let files: [String: [UInt8]] = [
        "index.html": PackageResources.index_html,
        "app.js": PackageResources.app_js,
        "map.js": PackageResources.map_js,
        "views.js": PackageResources.views_js,
        "playback.js": PackageResources.playback_js,
        "style.css": PackageResources.style_css,
    ]

    /// The `Content-Type` of a file by its extension.
    public static func contentType(_ name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }
}
