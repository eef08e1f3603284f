/// What `TarReader.feed` reports, in archive order: `begin`, then a file's `data` chunks, then `end`.
public enum TarEvent {
    /// An entry starts. A directory's `end` follows at once.
    case begin(TarEntry)
    /// Next bytes of the current file, pointing into the buffer given to `feed`:
    /// valid only during the handler call, so copy or write them before returning.
    case data(UnsafeRawBufferPointer)
    /// All of the entry's data has been reported.
    case end(TarEntry)
}
