/// Text put into HTML that `mirror` makes itself (the search pages of `mirror serve`, the
/// snippets of `mirror search`): the five characters that could end an element or an attribute
/// value become references.
public enum HTMLEscaping {
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
