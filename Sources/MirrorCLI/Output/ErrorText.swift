import Foundation

/// An error as a person reads it: for a failed system call, the system's own words ("no such
/// file or directory"), not Foundation's description of its error domains.
enum ErrorText {
    static func plain(_ error: any Error) -> String {
        systemWords(error) ?? "\(error)"
    }

    /// The system's words for `error` when it is, or wraps, a failed system call.
    private static func systemWords(_ error: any Error) -> String? {
        if let error = error as? POSIXError { return words(error.code.rawValue) }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return words(Int32(error.code)) }
        return (error.userInfo[NSUnderlyingErrorKey] as? any Error).flatMap(systemWords)
    }

    private static func words(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
