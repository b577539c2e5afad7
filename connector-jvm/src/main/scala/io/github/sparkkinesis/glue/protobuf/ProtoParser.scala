// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import io.github.sparkkinesis.glue.protobuf.ProtoLexer._

/**
 * Reads the text of a `.proto` file, as the registry stores a Protobuf schema version's definition, into a
 * [[ProtoFile]]: proto2 and proto3 syntax (a file without `syntax` is proto2, as protoc reads it).
 *
 * Read: `package`; messages and enums, nested; fields with their labels (proto3's implicit presence and its
 * `optional`), `oneof`, `map<K, V>`, enums with `allow_alias`, the field options `default` (proto2) and
 * `packed`; comments and string literals with their escapes. Type names are resolved by Protobuf's scoping
 * rules (innermost scope first; a leading dot for a full name).
 *
 * Read and ignored: every other option (file, message, field, enum), `reserved`, `extensions` ranges,
 * `extend` blocks (an extension's values are, in a record, fields the message does not declare, and are
 * skipped as Spark's `from_protobuf` skips them by default), `service` definitions.
 *
 * Refused with a [[ProtoSchemaException]] naming `line:column`: `group` (proto2's deprecated groups: declare
 * a message and a field of it instead), imports other than the well-known types of [[WellKnownTypes]] (the
 * registry stores one file per version, and its serializers resolve no other import), editions
 * (`edition = "2023"`), type names that name nothing, duplicate field numbers or names, and the rules protoc
 * enforces that the mapping relies on (a proto2 field without a label, `required` or `[default]` in proto3,
 * a proto3 enum whose first value is not 0, map keys of a type Protobuf does not allow).
 *
 * Stateless and thread-safe; runs on the driver when the reader schema is fixed, and on executors when a
 * task builds its decoder from the schema's text.
 */
private[sparkkinesis] object ProtoParser {

  /**
   * The file `text` declares.
   *
   * @throws ProtoSchemaException if it is no `.proto` file, or one this connector does not read
   */
  def parse(text: String): ProtoFile = new Resolver(new Parser(text).file()).resolve()

  private val MaxFieldNumber = (1 << 29) - 1

  private val Labels = Seq("optional", "required", "repeated")

  /** A default as written, converted once its field's type is known. */
  private final case class RawDefault(negative: Boolean, token: Token)

  private final class Parser(text: String) {
    private val lexer = new ProtoLexer(text)
    private var token = lexer.next()
    private var ahead: Token = null
    private var syntax = "proto2"

    private def peek: Token = { if (ahead == null) ahead = lexer.next(); ahead }

    private def take(): Token = {
      val t = token
      if (ahead != null) { token = ahead; ahead = null }
      else token = lexer.next()
      t
    }

    private def fail(at: Token, problem: String, remedy: String): Nothing =
      throw error(at.line, at.column, problem, remedy)

    private def is(symbol: String): Boolean = token.kind == Sym && token.text == symbol
    private def isWord(word: String): Boolean = token.kind == Ident && token.text == word

    private def expect(symbol: String, what: String): Token =
      if (is(symbol)) take()
      else fail(token, s"expected '$symbol' $what, found ${token.describe}", "check the statement's syntax")

    private def ident(what: String): Token =
      if (token.kind == Ident) take()
      else fail(token, s"expected $what, found ${token.describe}", "check the statement's syntax")

    /** `a.b.c`, or `.a.b.c` when `leadingDot`. */
    private def fullIdent(what: String, leadingDot: Boolean): (String, Token) = {
      val start = token
      val sb = new StringBuilder
      if (leadingDot && is(".")) { take(); sb.append('.') }
      sb.append(ident(what).text)
      while (is(".")) { take(); sb.append('.').append(ident(what).text) }
      (sb.toString, start)
    }

    private def stringLiteral(what: String): String = {
      if (token.kind != StrLit) fail(token, s"expected $what as a string literal, found ${token.describe}", "quote it")
      val out = new java.io.ByteArrayOutputStream()
      while (token.kind == StrLit) out.write(take().bytes)
      new String(out.toByteArray, StandardCharsets.UTF_8)
    }

    def file(): RawFile = {
      var pkg = ""
      val imports = mutable.ArrayBuffer.empty[String]
      val messages = mutable.ArrayBuffer.empty[RawMessage]
      val enums = mutable.ArrayBuffer.empty[ProtoEnum]
      while (token.kind != End) {
        val start = token
        if (is(";")) take()
        else if (isWord("syntax")) {
          take(); expect("=", "after syntax")
          val at = token
          syntax = stringLiteral("the syntax")
          if (syntax != "proto2" && syntax != "proto3")
            fail(at, "the syntax is \"" + syntax + "\"", "write syntax = \"proto2\" or \"proto3\"")
          expect(";", "after the syntax")
        } else if (isWord("edition")) {
          fail(start, "the file declares a Protobuf edition", "write the schema with syntax = \"proto3\" or \"proto2\"")
        } else if (isWord("package")) {
          take(); pkg = fullIdent("the package name", leadingDot = false)._1; expect(";", "after the package")
        } else if (isWord("import")) {
          take()
          if (isWord("public") || isWord("weak")) take()
          val at = token
          val path = stringLiteral("the imported file")
          if (!WellKnownTypes.imports.contains(path))
            fail(
              at,
              "the file imports \"" + path + "\"",
              "the registry stores one file per schema version: declare the imported types in this file " +
                s"(the imports read are ${WellKnownTypes.imports.keys.toSeq.sorted.mkString(", ")})"
            )
          imports += path
          expect(";", "after the import")
        } else if (isWord("option")) option()
        else if (isWord("message")) messages += message(pkg)
        else if (isWord("enum")) enums += enumType(pkg)
        else if (isWord("service") || isWord("extend")) { take(); fullIdent("a name", leadingDot = true); block() }
        else fail(start, s"expected a statement of the file, found ${start.describe}", "check the file's syntax")
      }
      RawFile(syntax, pkg, messages.toSeq, enums.toSeq, imports.toSeq)
    }

    /** `option name = constant;`, ignored. */
    private def option(): Unit = {
      take(); optionName(); expect("=", "after the option's name"); constant(); expect(";", "after the option")
    }

    private def optionName(): String = {
      val sb = new StringBuilder
      do {
        if (sb.nonEmpty) { take(); sb.append('.') }
        if (is("(")) {
          take(); sb.append('(').append(fullIdent("an option name", leadingDot = true)._1).append(')')
          expect(")", "after the option's name")
        } else sb.append(ident("an option name").text)
      } while (is("."))
      sb.toString
    }

    /** A constant: a number, identifier, string or `{...}` aggregate; its sign and its token. */
    private def constant(): RawDefault = {
      var negative = false
      if (is("-") || is("+")) negative = take().text == "-"
      if (is("{")) { block(); RawDefault(negative, token) }
      else if (token.kind == StrLit) {
        val t = token
        val out = new java.io.ByteArrayOutputStream()
        while (token.kind == StrLit) out.write(take().bytes)
        RawDefault(negative, t.copy(bytes = out.toByteArray))
      } else if (token.kind == Ident || token.kind == IntLit || token.kind == FloatLit) {
        val t = take()
        if (t.kind == Ident) {
          val (rest, _) = if (is(".")) { take(); fullIdent("a name", leadingDot = false) }
          else ("", t)
          RawDefault(negative, if (rest.isEmpty) t else t.copy(text = s"${t.text}.$rest"))
        } else RawDefault(negative, t)
      } else fail(token, s"expected a constant, found ${token.describe}", "write a number, a name or a string")
    }

    /** Skips a `{ ... }` block, nested blocks and all. */
    private def block(): Unit = {
      val open = expect("{", "to open the block")
      var depth = 1
      while (depth > 0) {
        if (token.kind == End) fail(open, "a block is not closed", "close it with }")
        if (is("{")) depth += 1 else if (is("}")) depth -= 1
        take()
      }
    }

    /** Skips a statement to its `;`. */
    private def skipStatement(): Unit = {
      val start = token
      while (!is(";")) {
        if (token.kind == End) fail(start, "a statement has no ';'", "end it with ;")
        take()
      }
      take()
    }

    private def message(scope: String): RawMessage = {
      take()
      val name = ident("the message's name")
      val fullName = join(scope, name.text)
      val body = mutable.ArrayBuffer.empty[RawField]
      val messages = mutable.ArrayBuffer.empty[RawMessage]
      val enums = mutable.ArrayBuffer.empty[ProtoEnum]
      expect("{", "to open the message")
      while (!is("}")) {
        val start = token
        if (token.kind == End) fail(name, s"message ${name.text} is not closed", "close it with }")
        else if (is(";")) take()
        else if (isWord("message") && peek.kind == Ident) messages += message(fullName)
        else if (isWord("enum") && peek.kind == Ident) enums += enumType(fullName)
        else if (isWord("option")) option()
        else if (isWord("oneof") && peek.kind == Ident) {
          take()
          val oneof = ident("the oneof's name").text
          expect("{", "to open the oneof")
          while (!is("}")) {
            if (token.kind == End) fail(start, s"oneof $oneof is not closed", "close it with }")
            else if (is(";")) take()
            else if (isWord("option")) option()
            else body += field(fullName, "", Some(oneof))
          }
          take()
        } else if ((isWord("reserved") || isWord("extensions")) && peek.kind != Sym) skipStatement()
        else if (isWord("extend") && peek.kind == Ident) { take(); fullIdent("a name", leadingDot = true); block() }
        else if (isWord("map") && peek.kind == Sym && peek.text == "<") body += mapField()
        else {
          val label =
            if (Labels.exists(isWord) && (peek.kind == Ident || peek.kind == Sym && peek.text == ".")) take().text
            else ""
          if (label.nonEmpty && isWord("map") && peek.kind == Sym && peek.text == "<")
            fail(start, "a map field has a label", "remove the label: a map is repeated already")
          body += field(fullName, label, None)
        }
      }
      take()
      RawMessage(fullName, name.text, body.toSeq, messages.toSeq, enums.toSeq)
    }

    private def field(scope: String, label: String, oneof: Option[String]): RawField = {
      val start = token
      if (isWord("group") && peek.kind == Ident)
        fail(
          start,
          s"${scope.split('.').last} declares a group",
          "groups are deprecated and not read: declare a message and a field of that type instead")
      if (syntax == "proto2" && label.isEmpty && oneof.isEmpty)
        fail(start, "a proto2 field has no label", "write optional, required or repeated before its type")
      if (syntax == "proto3" && label == "required")
        fail(start, "a proto3 field is required", "remove required: proto3 has no required fields")
      val (typeName, typeToken) = fullIdent("the field's type", leadingDot = true)
      val fieldType =
        if (ProtoScalar.WireTypes.contains(typeName)) ProtoScalar(typeName)
        else ProtoUnresolved(typeName, typeToken.line, typeToken.column)
      finish(scope, label, fieldType, oneof)
    }

    private def mapField(): RawField = {
      val start = take()
      expect("<", "after map")
      val (keyName, keyToken) = fullIdent("the map's key type", leadingDot = true)
      if (!ProtoScalar.KeyTypes.contains(keyName))
        fail(keyToken, s"a map's key is of type $keyName", "key a map by an integer type, bool or string")
      expect(",", "between the map's key and value types")
      val (valueName, valueToken) = fullIdent("the map's value type", leadingDot = true)
      if (valueName == "map") fail(valueToken, "a map's values are maps", "wrap the inner map in a message")
      expect(">", "after the map's value type")
      val value =
        if (ProtoScalar.WireTypes.contains(valueName)) ProtoScalar(valueName)
        else ProtoUnresolved(valueName, valueToken.line, valueToken.column)
      finish(start.text, "", ProtoMap(ProtoScalar(keyName), value), None)
    }

    private def finish(scope: String, label: String, fieldType: ProtoType, oneof: Option[String]): RawField = {
      val name = ident("the field's name")
      expect("=", "after the field's name")
      val numberToken = token
      val number =
        if (token.kind == IntLit) parseInteger(take(), negative = false).filter(n => n >= 1 && n <= MaxFieldNumber)
        else None
      if (number.isEmpty)
        fail(
          numberToken,
          s"field ${name.text} has the number ${numberToken.describe}",
          s"number it from 1 to $MaxFieldNumber")
      var default: Option[RawDefault] = None
      var packed: Option[Boolean] = None
      if (is("[")) {
        take()
        do {
          if (is(",")) take()
          val at = token
          val option = optionName()
          expect("=", "after the option's name")
          val value = constant()
          if (option == "default") {
            if (syntax == "proto3")
              fail(at, s"field ${name.text} has a default", "remove it: proto3 fields have no declared defaults")
            default = Some(value)
          } else if (option == "packed") packed = Some(value.token.kind == Ident && value.token.text == "true")
        } while (is(","))
        expect("]", "after the field's options")
      }
      expect(";", "after the field")
      RawField(name, label, fieldType, oneof, default, number.get.toInt, syntax, packed)
    }

    private def enumType(scope: String): ProtoEnum = {
      take()
      val name = ident("the enum's name")
      val values = mutable.ArrayBuffer.empty[(String, Int)]
      var allowAlias = false
      expect("{", "to open the enum")
      while (!is("}")) {
        val start = token
        if (token.kind == End) fail(name, s"enum ${name.text} is not closed", "close it with }")
        else if (is(";")) take()
        else if (isWord("option")) {
          take()
          val option = optionName()
          expect("=", "after the option's name")
          val value = constant()
          if (option == "allow_alias") allowAlias = value.token.text == "true"
          expect(";", "after the option")
        } else if (isWord("reserved") && peek.kind != Sym) skipStatement()
        else {
          val valueName = ident("an enum value's name")
          expect("=", "after the enum value's name")
          val negative = is("-") && { take(); true }
          val numberToken = token
          val number =
            if (token.kind == IntLit) parseInteger(take(), negative).filter(n => n.isValidInt)
            else None
          if (number.isEmpty)
            fail(
              numberToken,
              s"enum value ${valueName.text} has the number ${numberToken.describe}",
              "number it with a 32-bit integer")
          if (is("[")) {
            take();
            while (!is("]")) {
              if (token.kind == End) fail(start, "options are not closed", "close them with ]"); take()
            }; take()
          }
          expect(";", "after the enum value")
          if (values.exists(_._1 == valueName.text))
            fail(valueName, s"enum ${name.text} has two values named ${valueName.text}", "rename one")
          if (!allowAlias && values.exists(_._2 == number.get.toInt))
            fail(
              valueName,
              s"enum ${name.text} gives the number ${number.get} to two values",
              "give each its own number, or set option allow_alias = true")
          values += valueName.text -> number.get.toInt
        }
      }
      take()
      if (values.isEmpty) fail(name, s"enum ${name.text} has no values", "declare at least one value")
      if (syntax == "proto3" && values.head._2 != 0)
        fail(name, s"the first value of proto3 enum ${name.text} is not 0", "declare a value numbered 0 first")
      ProtoEnum(join(scope, name.text), name.text, values.toSeq, closed = syntax == "proto2")
    }
  }

  /** An integer literal's value: decimal, `0x` hexadecimal or `0` octal. */
  private def parseInteger(token: Token, negative: Boolean): Option[BigInt] = {
    val t = token.text
    val magnitude =
      try
        Some(
          if (t.length > 2 && (t.startsWith("0x") || t.startsWith("0X"))) BigInt(t.substring(2), 16)
          else if (t.length > 1 && t.startsWith("0")) BigInt(t.substring(1), 8)
          else BigInt(t))
      catch { case _: NumberFormatException => None }
    magnitude.map(m => if (negative) -m else m)
  }

  private def join(scope: String, name: String): String = if (scope.isEmpty) name else s"$scope.$name"

  private final case class RawFile(
      syntax: String,
      packageName: String,
      messages: Seq[RawMessage],
      enums: Seq[ProtoEnum],
      imports: Seq[String])

  private final case class RawMessage(
      fullName: String,
      name: String,
      fields: Seq[RawField],
      messages: Seq[RawMessage],
      enums: Seq[ProtoEnum])

  private final case class RawField(
      name: Token,
      label: String,
      fieldType: ProtoType,
      oneof: Option[String],
      default: Option[RawDefault],
      number: Int,
      syntax: String,
      packed: Option[Boolean])

  /** Resolves the type names of a parsed file, and converts the defaults to their fields' types. */
  private final class Resolver(raw: RawFile) {
    private val imported = raw.imports.flatMap(WellKnownTypes.imports).map(_.fullName).toSet
    private val shell = ProtoFile(raw.syntax, raw.packageName, Nil, raw.enums, raw.imports)
    private val names: Map[String, Boolean] = { // full name -> is a message
      def walk(m: RawMessage): Seq[(String, Boolean)] =
        (m.fullName -> true) +: (m.enums.map(_.fullName -> false) ++ m.messages.flatMap(walk))
      (WellKnownTypes.messages.map(_.fullName -> true) ++ raw.enums.map(_.fullName -> false) ++ raw.messages.flatMap(
        walk)).toMap
    }
    private val enums: Map[String, ProtoEnum] = {
      def walk(m: RawMessage): Seq[ProtoEnum] = m.enums ++ m.messages.flatMap(walk)
      (raw.enums ++ raw.messages.flatMap(walk)).map(e => e.fullName -> e).toMap
    }
    private val prefixes: Set[String] =
      names.keySet.flatMap(n => n.split('.').inits.filter(_.nonEmpty).map(_.mkString(".")))

    def resolve(): ProtoFile = shell.copy(messages = raw.messages.map(message))

    private def message(m: RawMessage): ProtoMessage = {
      val seenNumbers = mutable.Map.empty[Int, String]
      val seenNames = mutable.Set.empty[String]
      val fields = m.fields.map { f =>
        seenNumbers.get(f.number).foreach { other =>
          throw error(
            f.name.line,
            f.name.column,
            s"fields $other and ${f.name.text} of ${m.name} have the number ${f.number}",
            "give each its own number")
        }
        if (!seenNames.add(f.name.text))
          throw error(f.name.line, f.name.column, s"${m.name} has two fields named ${f.name.text}", "rename one")
        seenNumbers(f.number) = f.name.text
        field(f, m.fullName)
      }
      ProtoMessage(m.fullName, m.name, fields, m.messages.map(message), m.enums)
    }

    private def field(f: RawField, scope: String): ProtoField = {
      val fieldType = typeOf(f.fieldType, scope)
      val isMessage = fieldType.isInstanceOf[ProtoMessageRef]
      val default = f.default.map { d =>
        if (f.label == "repeated" || isMessage || fieldType.isInstanceOf[ProtoMap])
          throw error(
            d.token.line,
            d.token.column,
            s"field ${f.name.text} has a default",
            "remove it: only singular scalar and enum fields have one")
        defaultValue(d, fieldType, f.name.text)
      }
      val label = fieldType match {
        case _: ProtoMap => "repeated"
        case _ => f.label
      }
      val implicitPresence = f.syntax == "proto3" && label.isEmpty && f.oneof.isEmpty && !isMessage
      val packable = fieldType match {
        case ProtoScalar(name) => ProtoScalar.WireTypes(name) != 2
        case _: ProtoEnumRef => true
        case _ => false
      }
      // protobuf-java packs a proto3 repeated scalar unless told not to, a proto2 one only when told to.
      val packed = label == "repeated" && packable && f.packed.getOrElse(f.syntax == "proto3")
      ProtoField(f.name.text, f.number, label, fieldType, f.oneof, default, implicitPresence, packed)
    }

    private def typeOf(t: ProtoType, scope: String): ProtoType = t match {
      case ProtoUnresolved(name, line, column) =>
        val full = lookup(name, scope).getOrElse {
          throw error(
            line,
            column,
            s"the type $name names no message or enum of the file",
            "declare it, or name it by its full name")
        }
        if (WellKnownTypes.messages.exists(_.fullName == full) && !imported(full))
          throw error(
            line,
            column,
            s"the type $name is a well-known type the file does not import",
            "import its file, such as google/protobuf/timestamp.proto")
        if (names(full)) ProtoMessageRef(full) else ProtoEnumRef(full)
      case ProtoMap(key, value) => ProtoMap(key, typeOf(value, scope))
      case other => other
    }

    /** Protobuf's scoping: the innermost scope where the name's first part is known decides. */
    private def lookup(name: String, scope: String): Option[String] =
      if (name.startsWith(".")) Some(name.drop(1)).filter(names.contains)
      else {
        val first = name.takeWhile(_ != '.')
        val scopes = scope.split('.').inits.map(_.mkString(".")).toSeq
        scopes.find(s => prefixes.contains(join(s, first))).map(s => join(s, name)).filter(names.contains)
      }

    private def defaultValue(d: RawDefault, t: ProtoType, field: String): Any = {
      val token = d.token
      def bad(expected: String): Nothing =
        throw error(token.line, token.column, s"the default of field $field is no $expected", s"write a $expected")
      def integer(min: BigInt, max: BigInt): BigInt =
        if (token.kind != IntLit) bad("integer")
        else
          parseInteger(token, d.negative).filter(v => v >= min && v <= max).getOrElse(bad(s"integer from $min to $max"))
      def floating(): Double = token.kind match {
        case IntLit => parseInteger(token, d.negative).map(_.toDouble).getOrElse(bad("number"))
        case FloatLit =>
          try (if (d.negative) -token.text.toDouble else token.text.toDouble)
          catch { case _: NumberFormatException => bad("number") }
        case Ident if token.text == "inf" => if (d.negative) Double.NegativeInfinity else Double.PositiveInfinity
        case Ident if token.text == "nan" => Double.NaN
        case _ => bad("number")
      }
      t match {
        case ProtoScalar("int32" | "sint32" | "sfixed32") => integer(Int.MinValue, Int.MaxValue).toInt
        case ProtoScalar("uint32" | "fixed32") => integer(0, BigInt(0xffffffffL)).toInt
        case ProtoScalar("int64" | "sint64" | "sfixed64") => integer(Long.MinValue, Long.MaxValue).toLong
        case ProtoScalar("uint64" | "fixed64") => integer(0, (BigInt(1) << 64) - 1).toLong
        case ProtoScalar("float") => floating().toFloat
        case ProtoScalar("double") => floating()
        case ProtoScalar("bool") =>
          if (token.kind == Ident && !d.negative && (token.text == "true" || token.text == "false"))
            token.text == "true"
          else bad("boolean (true or false)")
        case ProtoScalar("string") =>
          if (token.kind == StrLit) new String(token.bytes, StandardCharsets.UTF_8) else bad("string")
        case ProtoScalar(_) => if (token.kind == StrLit) token.bytes else bad("string of bytes")
        case ProtoEnumRef(name) =>
          val e = enums(name)
          if (token.kind == Ident && !d.negative && e.values.exists(_._1 == token.text)) token.text
          else bad(s"value of enum ${e.name}")
        case _ => bad("scalar")
      }
    }
  }
}
