/// A transport failure that sending the request again cannot fix — say, a server certificate
/// that fails verification. Callers that retry failed requests report it at once instead.
public protocol PermanentTransportError: Error {}
