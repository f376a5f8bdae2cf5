import Foundation
import TestSupport
import Testing
@testable import ForceStageFormats
import ForceStageTools

/// Cases written from the TOML 1.0 specification (https://toml.io/en/v1.0.0),
/// one feature each: every valid document must parse, every invalid one must
/// be refused with a line. They also seed the profile fuzzer (Fuzz/corpus/profile).
enum TOMLCases {
    static let valid: [(String, String)] = [
        ("comment", "# full line\nkey = \"value\"  # end of line\n"),
        ("bare keys", "key = 1\nbare_key = 2\nbare-key = 3\n1234 = 4\n"),
        ("quoted keys", "\"127.0.0.1\" = \"v\"\n\"character encoding\" = \"v\"\n'key2' = \"v\"\n'quoted \"value\"' = \"v\"\n\"\" = \"empty\"\n"),
        ("dotted keys", "name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\nsite.\"google.com\" = true\n"),
        ("dotted keys with spaces", "fruit.name = \"banana\"\nfruit. color = \"yellow\"\nfruit . flavor = \"banana\"\n"),
        ("dotted keys then subtable header", "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n"),
        ("basic string escapes", "s = \"tab\\t nl\\n cr\\r quote\\\" bs\\\\ bsp\\b ff\\f u\\u00E9 U\\U0001F600\"\n"),
        ("literal strings", "winpath = 'C:\\Users\\nodejs\\templates'\nquoted = 'Tom \"Dubs\" Preston-Werner'\nregex = '<\\i\\c*\\s*>'\n"),
        ("multi-line basic", "s = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n"),
        ("multi-line basic line-ending backslash", "s = \"\"\"\\\n  The quick brown \\\n\n  fox.\\\n  \"\"\"\n"),
        ("multi-line basic quotes inside", "s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\ns2 = \"\"\"Here are fifteen: \"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\".\"\"\"\ns3 = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n"),
        ("multi-line literal", "re = '''I [dw]on't need \\d{2} apples'''\nlines = '''\nThe first newline is\ntrimmed in raw strings.\n'''\nq = ''''That,' she said, 'is still pointless.''''\n"),
        ("tab in string", "s = \"a\tb\"\nl = 'a\tb'\n"),
        ("integers", "a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 1_2_3_4_5\nh = -0\ni = +0\n"),
        ("integer limits", "max = 9223372036854775807\nmin = -9223372036854775808\n"),
        ("hex octal binary", "h1 = 0xDEADBEEF\nh2 = 0xdeadbeef\nh3 = 0xdead_beef\no1 = 0o01234567\no2 = 0o755\nb1 = 0b11010110\nz = 0x0\n"),
        ("floats", "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = 224_617.445_991_228\ni = -0.0\nj = +0.0\nk = 1e40\n"),
        ("inf nan", "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\n"),
        ("booleans", "t = true\nf = false\n"),
        ("offset datetimes", "a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00-07:00\nc = 1979-05-27T00:32:00.999999-07:00\nd = 1979-05-27 07:32:00Z\ne = 1979-05-27t07:32:00z\n"),
        ("local date-time date time", "a = 1979-05-27T07:32:00\nb = 1979-05-27T00:32:00.999999\nc = 1979-05-27\nd = 07:32:00\ne = 00:32:00.999999\nleap = 2000-02-29\n"),
        ("arrays", "integers = [ 1, 2, 3 ]\ncolors = [ \"red\", \"yellow\", \"green\" ]\nnested = [ [ 1, 2 ], [3, 4, 5] ]\nnested_mixed = [ [ 1, 2 ], [\"a\", \"b\", \"c\"] ]\nstring_array = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\nnumbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\n"),
        ("arrays multi-line with comments and trailing comma", "integers2 = [\n  1, 2, 3\n]\nintegers3 = [\n  1, # comment\n  2, # this is ok\n]\nempty = [ ]\n"),
        ("arrays of inline tables", "contributors = [\n  \"Foo Bar <foo@example.com>\",\n  { name = \"Baz Qux\", email = \"bazqux@example.com\", url = \"https://example.com/bazqux\" }\n]\n"),
        ("tables", "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = \"another string\"\nkey2 = 456\n"),
        ("table header spaces and quotes", "[dog.\"tater.man\"]\ntype.name = \"pug\"\n[ j . \"ʞ\" . 'l' ]\nx = 1\n[ levels ]\ny = 2\n"),
        ("implicit super-tables", "[x.y.z.w]\na = 1\n[x]\nb = 2\n"),
        ("empty table", "[table]\n"),
        ("out of order tables", "[fruit.apple]\n[animal]\n[fruit.orange]\n"),
        ("root keys then tables", "name = \"Fido\"\nbreed = \"pug\"\n[owner]\nname = \"Regina Dogman\"\nmember_since = 1999-08-04\n"),
        ("inline tables", "name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\nanimal = { type.name = \"pug\" }\nempty = {}\n"),
        ("array of tables", "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty table within the array\n\n[[products]]\nname = \"Nail\"\nsku = 284758393\ncolor = \"gray\"\n"),
        ("nested array of tables", "[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n[[fruits.varieties]]\nname = \"red delicious\"\n[[fruits.varieties]]\nname = \"granny smith\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\nname = \"plantain\"\n"),
        ("crlf newlines", "a = 1\r\nb = \"x\"\r\n[t]\r\nc = 2\r\n"),
        ("no newline at end", "a = 1"),
        ("unicode in strings and comments", "s = \"Ünïcödé ✓\" # コメント\n"),
        ("whitespace around equals", "a=1\nb   =   2\n\tc\t=\t3\n"),
        ("keys that look like values", "true = 1\nfalse = 2\ninf = 3\nnan = 4\n"),
        ("empty document", ""),
        ("only comments", "# nothing\n\n   # here\n"),
    ]

    static let invalid: [(String, String)] = [
        ("leading zero", "a = 0500\n"),
        ("leading zero negative", "a = -01\n"),
        ("fraction without int part", "a = .5\n"),
        ("int part without fraction", "a = 5.\n"),
        ("double underscore", "a = 5__00\n"),
        ("leading underscore", "a = _500\n"),
        ("trailing underscore", "a = 500_\n"),
        ("underscore next to dot", "a = 1_.5\n"),
        ("exponent without digits", "a = 1e\n"),
        ("dot before exponent", "a = 1.e5\n"),
        ("float overflow", "a = 1e400\n"),
        ("integer overflow", "a = 9223372036854775808\n"),
        ("hex with sign", "a = +0xFF\n"),
        ("hex upper prefix", "a = 0XFF\n"),
        ("octal bad digit", "a = 0o8\n"),
        ("binary bad digit", "a = 0b102\n"),
        ("capital infinity", "a = Inf\n"),
        ("bare string value", "a = hello\n"),
        ("missing value", "a = \n"),
        ("missing equals", "a 1\n"),
        ("two values on a line", "a = 1 b = 2\n"),
        ("duplicate key", "a = 1\na = 2\n"),
        ("duplicate key quoted", "spelling = \"favorite\"\n\"spelling\" = \"favourite\"\n"),
        ("duplicate table", "[fruit]\napple = \"red\"\n[fruit]\norange = \"orange\"\n"),
        ("table over dotted key table", "[fruit]\napple.color = \"red\"\n[fruit.apple]\n"),
        ("key over table", "[fruit]\napple = \"red\"\n[fruit.apple]\ntexture = \"smooth\"\n"),
        ("dotted key into header table", "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n"),
        ("dotted key over value", "a = 1\na.b = 2\n"),
        ("extend inline table by header", "[product]\ntype = { name = \"Nail\" }\n[product.type]\nedible = false\n"),
        ("extend inline table by dotted key", "[product]\ntype = { name = \"Nail\" }\ntype.edible = false\n"),
        ("inline table newline", "a = { x = 1,\n y = 2 }\n"),
        ("inline table trailing comma", "a = { x = 1, }\n"),
        ("inline table duplicate key", "a = { x = 1, x = 2 }\n"),
        ("append to static array", "fruits = []\n[[fruits]]\n"),
        ("table then array of tables", "[fruit]\n[[fruit]]\n"),
        ("array of tables then table", "[[fruit]]\nname = \"apple\"\n[fruit]\n"),
        ("unterminated array", "a = [1, 2\n"),
        ("array missing comma", "a = [1 2]\n"),
        ("array leading comma", "a = [, 1]\n"),
        ("unterminated string", "a = \"abc\n"),
        ("newline in basic string", "a = \"ab\ncd\"\n"),
        ("unknown escape", "a = \"\\x41\"\n"),
        ("short unicode escape", "a = \"\\u12\"\n"),
        ("surrogate unicode escape", "a = \"\\uD800\"\n"),
        ("out of range unicode escape", "a = \"\\U00110000\"\n"),
        ("control character in string", "a = \"a\u{01}b\"\n"),
        ("control character in literal string", "a = 'a\u{7F}b'\n"),
        ("control character in comment", "a = 1 # x\u{00}y\n"),
        ("lone carriage return", "a = 1\rb = 2\n"),
        ("too many quotes closing multi-line", "a = \"\"\"x\"\"\"\"\"\"\n"),
        ("multi-line key", "\"\"\"a\"\"\" = 1\n"),
        ("empty bare key", "= 1\n"),
        ("header without close", "[a\nb = 1\n"),
        ("array header without close", "[[a]\n"),
        ("empty header", "[]\n"),
        ("header with trailing text", "[a] b = 1\n"),
        ("bad month", "a = 1979-13-27\n"),
        ("bad day", "a = 1979-02-30\n"),
        ("not a leap year", "a = 1900-02-29\n"),
        ("bad hour", "a = 24:00:00\n"),
        ("time without seconds", "a = 07:32\n"),
        ("local time with offset", "a = 07:32:00Z\n"),
        ("datetime bad offset", "a = 1979-05-27T07:32:00+7:00\n"),
        ("space-separated key parts", "a b = 1\n"),
    ]
}

@Suite("TOML 1.0")
struct TOMLConformanceTests {
    @Test("Every valid case parses", arguments: TOMLCases.valid.indices)
    func valid(_ i: Int) {
        let (name, text) = TOMLCases.valid[i]
        #expect(throws: Never.self, "\(name)") { _ = try TOMLDocument(parsing: text) }
    }

    @Test("Every invalid case is refused with a line", arguments: TOMLCases.invalid.indices)
    func invalid(_ i: Int) {
        let (name, text) = TOMLCases.invalid[i]
        do {
            let doc = try TOMLDocument(parsing: text)
            Issue.record("accepted invalid TOML (\(name)): root \(doc.root.entries.map(\.key)) tables \(doc.tables.map(\.name))")
        } catch {
            #expect(error.line >= 1 && error.line <= text.split(separator: "\n", omittingEmptySubsequences: false).count + 1, "\(name): line \(error.line)")
        }
    }

    @Test("Values read as the spec says")
    func values() throws {
        let doc = try TOMLDocument(parsing: """
            hex = 0xdead_beef
            oct = 0o755
            bin = 0b1101
            neg = -17
            f = 224_617.445_991_228
            lit = 'C:\\Users'
            esc = "\\u00E9\\U0001F600\\t"
            ml = \"\"\"
            one \\
               two\"\"\"
            mll = '''
            raw \\n'''
            q = \"\"\"\"quoted\"\"\"\"
            [ a . "b.c" ]
            k = 1
            """)
        #expect(doc.root["hex"]?.value == .integer(0xdeadbeef))
        #expect(doc.root["oct"]?.value == .integer(0o755))
        #expect(doc.root["bin"]?.value == .integer(13))
        #expect(doc.root["neg"]?.value == .integer(-17))
        #expect(doc.root["f"]?.value == .float(224617.445991228))
        #expect(doc.root["lit"]?.value == .string("C:\\Users"))
        #expect(doc.root["esc"]?.value == .string("é😀\t"))
        #expect(doc.root["ml"]?.value == .string("one two"))
        #expect(doc.root["mll"]?.value == .string("raw \\n"))
        #expect(doc.root["q"]?.value == .string("\"quoted\""))
        #expect(doc.table("a.b.c")?["k"]?.value == .integer(1))
        #expect(doc.table("a.b.c")?.line == 14)
    }

    /// The shipped profiles rewritten with other TOML syntax for the same data.
    static func variants(of text: String) -> [String] {
        var out: [String] = []
        // Literal strings instead of basic ones.
        out.append(text.replacingOccurrences(of: "\"", with: "'"))
        // Spaces inside the table headers.
        out.append(text.replacingOccurrences(of: "[levels]", with: "[ levels ]").replacingOccurrences(of: "[[channel]]", with: "[[ channel ]]"))
        // Quoted keys.
        out.append(text.replacingOccurrences(of: "peek_newtons =", with: "\"peek_newtons\" =").replacingOccurrences(of: "schema =", with: "'schema' ="))
        // CRLF line ends.
        out.append(text.replacingOccurrences(of: "\n", with: "\r\n"))
        // Hex schema and underscores in numbers.
        out.append(text.replacingOccurrences(of: "schema = 1", with: "schema = 0x1"))
        return out
    }

    @Test("Every shipped profile reads the same through other TOML spellings of the same data")
    func profileVariants() throws {
        let dir = packageRoot.appendingPathComponent("calibration")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".toml") {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            let original = try Profile.parse(text, file: name)
            for (k, variant) in Self.variants(of: text).enumerated() {
                let p = try Profile.parse(variant, file: name)
                #expect(p.channels == original.channels && p.settings == original.settings && p.name == original.name &&
                        p.matchName == original.matchName && p.budgetMilliseconds == original.budgetMilliseconds, "\(name) variant \(k)")
            }
        }
    }

    @Test("Dotted keys and inline tables give the same profile as tables")
    func dottedAndInline() throws {
        let tables = "schema = 1\n[levels]\npeek_newtons = 1.0\npop_newtons = 2.5\n[[channel]]\nid = \"voltage0\"\nzero_raw = 100\nnewtons_per_count = 2e-6\n"
        let dotted = "schema = 1\nlevels.peek_newtons = 1.0\nlevels.pop_newtons = 2.5\n[[channel]]\nid = \"voltage0\"\nzero_raw = 100\nnewtons_per_count = 2e-6\n"
        let inline = "schema = 1\nlevels = { peek_newtons = 1.0, pop_newtons = 2.5 }\n[[channel]]\nid = \"voltage0\"\nzero_raw = 1_00\nnewtons_per_count = 2e-6\n"
        let a = try Profile.parse(tables, file: "a.toml"), b = try Profile.parse(dotted, file: "b.toml"), c = try Profile.parse(inline, file: "c.toml")
        #expect(a.settings == b.settings && a.settings == c.settings && a.channels == b.channels && a.channels == c.channels)
    }

    @Test("A date is valid TOML but not a profile value: the error names the file, line and key")
    func dateRejectedBySchema() {
        let text = "schema = 1\n[levels]\npeek_newtons = 1979-05-27\npop_newtons = 2.5\n[[channel]]\nid = \"voltage0\"\nzero_raw = 0\nnewtons_per_count = 2e-6\n"
        #expect {
            try Profile.parse(text, file: "p.toml")
        } throws: { error in
            (error as? InputError)?.description.hasPrefix("p.toml:3: levels.peek_newtons: must be a number") == true
        }
    }
}
