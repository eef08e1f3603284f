/// A WACZ's `datapackage.json` (Frictionless Data Package, WACZ 1.1.1): every file of the package
/// with its size and SHA-256, and what the package holds.
struct DataPackage: Encodable {
    struct Resource: Encodable {
        var name: String
        var path: String
        /// `sha256:` and the lower-case hex digest.
        var hash: String
        var bytes: Int
    }

    var profile = "data-package"
    var resources: [Resource]
    var created: String
    var software: String
    var mainPageURL: String?
    var mainPageDate: String?
    var waczVersion = WACZPackage.version
    var title = "mirror export"

    enum CodingKeys: String, CodingKey {
        case profile, resources, created, software, mainPageURL, mainPageDate, title
        case waczVersion = "wacz_version"
    }
}
