// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets

/**
 * The tokens of a `.proto` file's text, each with the line and column it starts at (1-based): identifiers
 * (without dots: `a.b` is three tokens), numbers (integers and floats as written, signs apart), string
 * literals (decoded: their escapes `\n`, `\x41`, `\101`, `\u00e9`, ... read into bytes, non-ASCII text as
 * UTF-8), and single symbols. Comments (`//` to the end of the line, and `/* ... */`) are skipped.
 *
 * Used by [[ProtoParser]] only. Not thread-safe: one per parse.
 */
private[protobuf] final class ProtoLexer(text: String) {
  import ProtoLexer._

  private var pos = 0
  private var line = 1
  private var column = 1

  /** The next token; an [[ProtoLexer.End]] token at the end of the text. */
  def next(): Token = {
    skipSpaceAndComments()
    if (pos >= text.length) return Token(End, "", line, column)
    val (startLine, startColumn) = (line, column)
    val c = text.charAt(pos)
    if (isLetter(c)) {
      val start = pos
      while (pos < text.length && (isLetter(text.charAt(pos)) || isDigit(text.charAt(pos)))) advance()
      Token(Ident, text.substring(start, pos), startLine, startColumn)
    } else if (isDigit(c) || (c == '.' && pos + 1 < text.length && isDigit(text.charAt(pos + 1)))) {
      val start = pos
      val hex = c == '0' && pos + 1 < text.length && (text.charAt(pos + 1) | 0x20) == 'x'
      while (pos < text.length && {
          val d = text.charAt(pos)
          isLetter(d) || isDigit(d) || d == '.' ||
          ((d == '+' || d == '-') && !hex && (text.charAt(pos - 1) | 0x20) == 'e')
        }) advance()
      val number = text.substring(start, pos)
      val isFloat = !hex && number.exists(ch => ch == '.' || ch == 'e' || ch == 'E' || ch == 'f' || ch == 'F')
      Token(if (isFloat) FloatLit else IntLit, number, startLine, startColumn)
    } else if (c == '"' || c == '\'') {
      Token(StrLit, "", startLine, startColumn, string(c, startLine, startColumn))
    } else {
      advance()
      Token(Sym, c.toString, startLine, startColumn)
    }
  }

  private def advance(): Unit = {
    if (text.charAt(pos) == '\n') { line += 1; column = 1 }
    else column += 1
    pos += 1
  }

  private def skipSpaceAndComments(): Unit = {
    var more = true
    while (more && pos < text.length) {
      val c = text.charAt(pos)
      if (Character.isWhitespace(c)) advance()
      else if (text.startsWith("//", pos)) while (pos < text.length && text.charAt(pos) != '\n') advance()
      else if (text.startsWith("/*", pos)) {
        val (l, col) = (line, column)
        advance(); advance()
        while (pos < text.length && !text.startsWith("*/", pos)) advance()
        if (pos >= text.length) throw error(l, col, "a /* comment is not closed", "close it with */")
        advance(); advance()
      } else more = false
    }
  }

  private def string(quote: Char, startLine: Int, startColumn: Int): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    advance()
    while (pos < text.length && text.charAt(pos) != quote) {
      val c = text.charAt(pos)
      if (c == '\n')
        throw error(startLine, startColumn, "a string literal runs to the end of its line", s"close it with $quote")
      if (c != '\\') {
        val cp = text.codePointAt(pos)
        out.write(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8))
        (0 until Character.charCount(cp)).foreach(_ => advance())
      } else {
        advance()
        if (pos >= text.length)
          throw error(startLine, startColumn, "a string literal is not closed", s"close it with $quote")
        val e = text.charAt(pos)
        advance()
        e match {
          case 'a' => out.write(7)
          case 'b' => out.write('\b')
          case 'f' => out.write('\f')
          case 'n' => out.write('\n')
          case 'r' => out.write('\r')
          case 't' => out.write('\t')
          case 'v' => out.write(11)
          case '\\' | '\'' | '"' | '?' => out.write(e)
          case 'x' | 'X' => out.write(digits(16, 2, startLine, startColumn))
          case d if d >= '0' && d <= '7' =>
            pos -= 1; column -= 1
            out.write(digits(8, 3, startLine, startColumn) & 0xff)
          case 'u' | 'U' =>
            val cp = digits(16, if (e == 'u') 4 else 8, startLine, startColumn, exact = true)
            if (!Character.isValidCodePoint(cp))
              throw error(
                startLine,
                startColumn,
                s"a string literal has the escape of no Unicode code point",
                "fix the escape")
            out.write(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8))
          case other =>
            throw error(
              startLine,
              startColumn,
              s"a string literal has the unknown escape \\$other",
              "escape a backslash as \\\\")
        }
      }
    }
    if (pos >= text.length)
      throw error(startLine, startColumn, "a string literal is not closed", s"close it with $quote")
    advance()
    out.toByteArray
  }

  private def digits(radix: Int, max: Int, l: Int, c: Int, exact: Boolean = false): Int = {
    var value = 0
    var n = 0
    while (n < max && pos < text.length && Character.digit(text.charAt(pos), radix) >= 0) {
      value = value * radix + Character.digit(text.charAt(pos), radix)
      advance()
      n += 1
    }
    if (n == 0 || (exact && n < max))
      throw error(l, c, "a string literal has an escape without its digits", "write the escape's digits in full")
    value
  }
}

private[protobuf] object ProtoLexer {

  sealed trait Kind
  case object Ident extends Kind
  case object IntLit extends Kind
  case object FloatLit extends Kind
  case object StrLit extends Kind
  case object Sym extends Kind
  case object End extends Kind

  /** A token; `bytes` holds a string literal's decoded value. */
  final case class Token(kind: Kind, text: String, line: Int, column: Int, bytes: Array[Byte] = null) {
    def describe: String = kind match {
      case End => "the end of the file"
      case StrLit => "a string literal"
      case _ => s"'$text'"
    }
  }

  private def isLetter(c: Char): Boolean = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
  private def isDigit(c: Char): Boolean = c >= '0' && c <= '9'

  /** A schema error at `line:column`: what is wrong there, and what to do. */
  def error(line: Int, column: Int, problem: String, remedy: String): ProtoSchemaException =
    new ProtoSchemaException(s"The .proto schema cannot be read at line $line:$column: $problem; $remedy.")
}
