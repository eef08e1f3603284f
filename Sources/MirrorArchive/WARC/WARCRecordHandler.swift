/// Receives the records a `WARCRecordParser` finds.
protocol WARCRecordHandler: AnyObject {
    /// A record starts; `offset` locates it in the file (see `ArchiveError.corrupt`).
    func begin(_ header: WARCHeader, offset: Int) throws
    /// The next bytes of the record's block.
    func block(_ bytes: ArraySlice<UInt8>) throws
    /// The record's block is complete.
    func end() throws
}
