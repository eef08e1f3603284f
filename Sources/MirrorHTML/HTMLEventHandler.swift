/// Receives what libxml2's HTML parser finds (through `HTMLSAXParser`), in document order, as
/// bytes that are valid only during each call — no String is made for what nobody reads.
/// Element and attribute names are lower-cased, text is UTF-8.
protocol HTMLEventHandler: AnyObject {
    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes])
    func endElement(_ name: UnsafeBufferPointer<UInt8>)
    /// Text of the current element, in one or more pieces; reported only while `wantsText`.
    func characters(_ text: UnsafeBufferPointer<UInt8>)
    /// Whether text is wanted now. A handler that needs text only inside some elements (e.g.
    /// `<style>`) turns it on from `startElement`, sparing the parser the rest.
    var wantsText: Bool { get }
}
