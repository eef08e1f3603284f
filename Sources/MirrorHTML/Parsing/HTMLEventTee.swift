/// Two handlers hearing one parse: the crawl reads a page's references and its text for the
/// search index in the same pass of libxml2 (a second parse would cost as much as the first).
final class HTMLEventTee: HTMLEventHandler {
    private let first: any HTMLEventHandler
    private let second: any HTMLEventHandler
    let wantsText: Bool

    init(_ first: any HTMLEventHandler, _ second: any HTMLEventHandler) {
        self.first = first
        self.second = second
        wantsText = first.wantsText || second.wantsText
    }

    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: [HTMLAttributeBytes]) {
        first.startElement(name, attributes: attributes)
        second.startElement(name, attributes: attributes)
    }

    func endElement(_ name: UnsafeBufferPointer<UInt8>) {
        if first.wantsText { first.endElement(name) }
        if second.wantsText { second.endElement(name) }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        if first.wantsText { first.characters(text) }
        if second.wantsText { second.characters(text) }
    }
}
