// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import Foundation
import Testing

/// JSONLineDecoder accepts what JSONDecoder accepts and refuses what it refuses, with the same
/// kind of DecodingError.
@Suite struct DecoderTests {
    @Test func whitespaceEscapesAndSurrogatePairs() {
        expectSameDecoding(String.self, #" "a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u2028\ud83d\ude00" "#)
        expectSameDecoding([String].self, " \t\r\n[ \"x\" , \"y\" ]\n")
        expectSameDecoding([String: String].self, #"{"k\u0000":"v","":"\u0000"}"#)
        for bad in [#""\ud83d""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ude00""#, #""\x""#, #""\u12G4""#,
                    #""\u12""#, #""\"#, "\"a\u{1}b\"", "\"tab\there\"", "\"\\u00\"", #""\uD800\uDBFF""#] {
            expectSameDecoding(String.self, bad)
        }
    }

    @Test func numbersIntoIntegerTypes() {
        let texts = ["0", "-0", "1", "-1", "1.0", "1e2", "1E+2", "100e-2", "1.5", "1e-1", "01", "-01", "1.", ".5",
                     "-", "1e", "1e+", "0.0", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                     "-9223372036854775809", "18446744073709551615", "18446744073709551616", "1e19", "1.8e19",
                     "9007199254740993", "9007199254740993.0", "12345678901234567.5", "-9223372036854775808.0",
                     "1e400", "-1e400", "1e-400", "2.5e3", "1-2", "1.2.3", "1e5e5", "+1", "0x10", "1 2", "NaN"]
        for text in texts {
            expectSameDecoding(Int.self, text)
            expectSameDecoding(Int64.self, text)
            expectSameDecoding(UInt64.self, text)
            expectSameDecoding(Int8.self, text)
            expectSameDecoding(UInt8.self, text)
            expectSameDecoding(Int32.self, text)
            expectSameDecoding([Int].self, "[\(text)]")
            expectSameDecoding([String: UInt16].self, "{\"k\":\(text)}")
        }
        expectSameDecoding(Int8.self, "127")
        expectSameDecoding(Int8.self, "128")
        expectSameDecoding(Int8.self, "-128")
        expectSameDecoding(UInt8.self, "256")
    }

    @Test func numbersIntoFloatingPointTypes() {
        let texts = ["0", "-0", "-0.0", "0.1", "1e-7", "1e21", "1.7976931348623157e308", "1.8e308", "4.9e-324",
                     "2e-324", "1e-400", "0e-400", "0.000e-400", "0.0000e5", "123456789012345678901234567890", "3.4028235e38",
                     "3.5e38", "1e-46", "1.5E+3", "1.e3", "-", "--1", "1e+-1", "9007199254740993", ".1", "00.1"]
        for text in texts {
            expectSameDecoding(Double.self, text)
            expectSameDecoding(Float.self, text)
            expectSameDecoding([Double].self, "[\(text)]")
            expectSameDecoding([String: Float].self, "{\"k\":\(text)}")
        }
    }

    /// A deliberate difference: JSONDecoder refuses some zeros with an exponent (`0e1`, `0.00e5`)
    /// as underflow, because its check for a true zero reads the last bytes in reverse; they are
    /// valid JSON and mean 0. No agent writes them (JSONEncoder and this encoder write `0`).
    @Test func zerosWithAnExponentAreZero() throws {
        for text in ["0e1", "0.00e5", "-0.000E5", "0.0e1"] {
            let value = try JSONLineDecoder().decode(Double.self, from: Array(text.utf8))
            #expect(value == 0)
            #expect(try JSONLineDecoder().decode(Float.self, from: Array(text.utf8)) == 0)
        }
        #expect(throws: DecodingError.self) { try Reference.decode(Double.self, Array("0e1".utf8)) }
    }

    @Test func wrongTypesMissingKeysAndNull() {
        expectSameDecoding(Int.self, #""1""#)
        expectSameDecoding(String.self, "1")
        expectSameDecoding(Bool.self, "1")
        expectSameDecoding(Bool.self, "true")
        expectSameDecoding(Int.self, "true")
        expectSameDecoding(Int.self, "null")
        expectSameDecoding(Int?.self, "null")
        expectSameDecoding([Int?].self, "[1,null,2]")
        expectSameDecoding([Int].self, "[1,null,2]")
        expectSameDecoding([Int].self, #"{"a":1}"#)
        expectSameDecoding([String: Int].self, "[1]")
        expectSameDecoding([String: Int].self, "null")
        expectSameDecoding(Sample.self, #"{"name":"x"}"#)
        expectSameDecoding(Sample.self, #"{"name":"x","count":null}"#)
        expectSameDecoding(Sample.self, #"{"name":"x","count":1,"tags":["a"],"extra":{"ignored":[1,2,{"x":null}]}}"#)
        expectSameDecoding(Sample.self, #"{"name":"x","count":1,"tags":null}"#)
        expectSameDecoding(Sample.self, #"{"name":1,"count":1}"#)
        expectSameDecoding([Int: String].self, #"{"1":"a","-2":"b"}"#)
        expectSameDecoding([Int: String].self, #"{"x":"a"}"#)
        expectSameDecoding(Plain.self, #""one""#)
        expectSameDecoding(Plain.self, #""three""#)
    }

    @Test func theFirstOfTwoEqualKeysWins() {
        expectSameDecoding(Sample.self, #"{"name":"first","count":1,"name":"second"}"#)
        expectSameDecoding([String: Int].self, #"{"a":1,"a":2}"#)
    }

    /// JSONDecoder checks a string's text and a number's grammar only when a type reads them.
    @Test func valuesNobodyReadsAreCheckedAsJSONDecoderChecksThem() {
        for ignored in ["1-2", "1.2.3", "01", "\"\\x\"", "\"\u{1}\"", "\"\\ud800\"", "[1,2,]", "tru", "{\"a\"}", "-"] {
            expectSameDecoding(Sample.self, #"{"name":"x","count":1,"extra":\#(ignored)}"#)
        }
        var invalidUTF8 = Array(#"{"name":"x","count":1,"extra":""#.utf8)
        invalidUTF8 += [0xFF, 0xFE]
        invalidUTF8 += Array(#""}"#.utf8)
        expectSameDecoding(Sample.self, invalidUTF8)
        var badKey = Array(#"{"name":"x","count":1,""#.utf8)
        badKey += [0xC3]
        badKey += Array(#"":1}"#.utf8)
        expectSameDecoding(Sample.self, badKey)
    }

    @Test func theErrorSaysWhereInTheDocument() throws {
        let input = Array(#"{"items":[{"name":"a","count":1},{"name":"b","count":"two"}]}"#.utf8)
        do {
            _ = try JSONLineDecoder().decode(Container.self, from: input)
            Issue.record("decoded a string as an Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "count"])
            #expect(context.codingPath[1].intValue == 1)
        }
        do {
            _ = try JSONLineDecoder().decode(Container.self, from: Array(#"{"items":[{"name":"a"}]}"#.utf8))
            Issue.record("decoded without a required key")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "count")
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0"])
        }
    }

    @Test func structureAsJSONDecoderReadsIt() {
        let texts = ["", " ", "[", "]", "[1,]", "[,1]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{1:1}", "[1 2]", "[1]x",
                     "[1] ", "[1]\n\n", "\u{FEFF}[1]", "[true,false,null]", "[tru]", "[nul]", "[truex]", "[]", "{}",
                     "[[[]]]", "[{}]", "\"a\"", "\"a\" \"b\"", "[1,\"a\",null,true,{\"k\":[]}]", "[\"a\"", "[\"a"]
        for text in texts {
            expectSameDecoding(Anything.self, text)
        }
    }
}

struct Sample: Codable {
    var name: String
    var count: Int
    var tags: [String]?
}

struct Container: Codable {
    var items: [Sample]
}
