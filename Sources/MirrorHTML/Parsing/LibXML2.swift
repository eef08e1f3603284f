internal import CLibXML2

/// The libxml2 this program runs with.
public enum LibXML2 {
    /// The library's version, as `2.9.14` (it reports `20914`).
    public static var version: String {
        let number = Int(String(cString: __xmlParserVersion().pointee!)) ?? 0
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }
}
