// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import scala.jdk.CollectionConverters._

import com.google.protobuf.{ByteString, DurationProto, DynamicMessage, MapEntry, TimestampProto, WrappersProto}
import com.google.protobuf.DescriptorProtos._
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.{Label, Type}
import com.google.protobuf.Descriptors.{Descriptor, FieldDescriptor, FileDescriptor}
import io.github.sparkkinesis.glue.avro.CatalystValues.{array, map, row, utf8}
import io.github.sparkkinesis.testing.SeededProperties
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * The encoder's bytes against protobuf-java (4.27, on the Spark 4 lines' test class path), the library the
 * registry's Java serializers write with: for random rows, protobuf-java reads our bytes as the message the
 * row is, and writes that message, built field by field with its own API (DynamicMessage, and MapEntry as
 * generated code builds map entries), as exactly our bytes: the same field order, packing, presence and
 * lengths. The descriptors of two files are built by hand below, apart from our parser; the `.proto` files of
 * random structs (`ProtoSchemas.fromSqlType`) are given to protobuf-java as our parser reads them.
 */
class ProtoEncoderOracleSuite extends AnyFunSuite with SeededProperties {

  // ---- descriptors by hand ----

  private def field(
      name: String,
      number: Int,
      t: Type,
      label: Label = Label.LABEL_OPTIONAL,
      typeName: String = null,
      oneof: Int = -1,
      proto3Optional: Boolean = false,
      packed: Option[Boolean] = None,
      default: String = null): FieldDescriptorProto = {
    val b = FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(t).setLabel(label)
    if (typeName != null) b.setTypeName(typeName)
    if (oneof >= 0) b.setOneofIndex(oneof)
    if (proto3Optional) b.setProto3Optional(true)
    packed.foreach(p => b.setOptions(FieldOptions.newBuilder().setPacked(p)))
    if (default != null) b.setDefaultValue(default)
    b.build()
  }

  private def mapEntry(name: String, key: Type, value: Type, valueType: String = null): DescriptorProto =
    DescriptorProto
      .newBuilder()
      .setName(name)
      .setOptions(MessageOptions.newBuilder().setMapEntry(true))
      .addField(field("key", 1, key))
      .addField(field("value", 2, value, typeName = valueType))
      .build()

  private def enumOf(name: String, values: (String, Int)*): EnumDescriptorProto =
    values
      .foldLeft(EnumDescriptorProto.newBuilder().setName(name)) { case (b, (n, v)) =>
        b.addValue(EnumValueDescriptorProto.newBuilder().setName(n).setNumber(v))
      }
      .build()

  private val wellKnown = Seq(TimestampProto.getDescriptor, DurationProto.getDescriptor, WrappersProto.getDescriptor)

  private def build(file: FileDescriptorProto): FileDescriptor =
    FileDescriptor.buildFrom(
      file,
      file.getDependencyList.asScala.map(name => wellKnown.find(_.getName == name).get).toArray)

  private val orderText =
    """syntax = "proto3";
      |package or;
      |import "google/protobuf/timestamp.proto";
      |import "google/protobuf/duration.proto";
      |import "google/protobuf/wrappers.proto";
      |message Order {
      |  int64 id = 1;
      |  string item = 2;
      |  optional int32 maybe = 3;
      |  repeated sint32 deltas = 4;
      |  repeated string tags = 5;
      |  map<string, Line> lines = 6;
      |  Line first = 7;
      |  oneof pay { string card = 8; int64 cash = 9; }
      |  Status status = 10;
      |  google.protobuf.Timestamp at = 11;
      |  google.protobuf.Duration took = 12;
      |  google.protobuf.Int64Value count = 13;
      |  repeated fixed64 fx = 14 [packed = false];
      |  double price = 15;
      |  bytes blob = 16;
      |  repeated Status history = 17;
      |  map<int64, int32> counts = 18;
      |  uint64 big = 19;
      |  sfixed32 sf = 20;
      |  enum Status { NEW = 0; PAID = 1; GONE = -1; }
      |  message Line { string sku = 1; uint32 qty = 2; repeated float weights = 3; }
      |}
      |""".stripMargin

  /** [[orderText]], by hand. */
  private val orderDescriptor: Descriptor = {
    val M = Type.TYPE_MESSAGE
    val repeated = Label.LABEL_REPEATED
    val order = DescriptorProto
      .newBuilder()
      .setName("Order")
      .addField(field("id", 1, Type.TYPE_INT64))
      .addField(field("item", 2, Type.TYPE_STRING))
      .addField(field("maybe", 3, Type.TYPE_INT32, oneof = 1, proto3Optional = true))
      .addField(field("deltas", 4, Type.TYPE_SINT32, repeated))
      .addField(field("tags", 5, Type.TYPE_STRING, repeated))
      .addField(field("lines", 6, M, repeated, ".or.Order.LinesEntry"))
      .addField(field("first", 7, M, typeName = ".or.Order.Line"))
      .addField(field("card", 8, Type.TYPE_STRING, oneof = 0))
      .addField(field("cash", 9, Type.TYPE_INT64, oneof = 0))
      .addField(field("status", 10, Type.TYPE_ENUM, typeName = ".or.Order.Status"))
      .addField(field("at", 11, M, typeName = ".google.protobuf.Timestamp"))
      .addField(field("took", 12, M, typeName = ".google.protobuf.Duration"))
      .addField(field("count", 13, M, typeName = ".google.protobuf.Int64Value"))
      .addField(field("fx", 14, Type.TYPE_FIXED64, repeated, packed = Some(false)))
      .addField(field("price", 15, Type.TYPE_DOUBLE))
      .addField(field("blob", 16, Type.TYPE_BYTES))
      .addField(field("history", 17, Type.TYPE_ENUM, repeated, ".or.Order.Status"))
      .addField(field("counts", 18, M, repeated, ".or.Order.CountsEntry"))
      .addField(field("big", 19, Type.TYPE_UINT64))
      .addField(field("sf", 20, Type.TYPE_SFIXED32))
      .addOneofDecl(OneofDescriptorProto.newBuilder().setName("pay"))
      .addOneofDecl(OneofDescriptorProto.newBuilder().setName("_maybe"))
      .addEnumType(enumOf("Status", "NEW" -> 0, "PAID" -> 1, "GONE" -> -1))
      .addNestedType(DescriptorProto
        .newBuilder()
        .setName("Line")
        .addField(field("sku", 1, Type.TYPE_STRING))
        .addField(field("qty", 2, Type.TYPE_UINT32))
        .addField(field("weights", 3, Type.TYPE_FLOAT, repeated)))
      .addNestedType(mapEntry("LinesEntry", Type.TYPE_STRING, M, ".or.Order.Line"))
      .addNestedType(mapEntry("CountsEntry", Type.TYPE_INT64, Type.TYPE_INT32))
    build(
      FileDescriptorProto
        .newBuilder()
        .setName("order.proto")
        .setPackage("or")
        .setSyntax("proto3")
        .addDependency("google/protobuf/timestamp.proto")
        .addDependency("google/protobuf/duration.proto")
        .addDependency("google/protobuf/wrappers.proto")
        .addMessageType(order)
        .build()).findMessageTypeByName("Order")
  }

  private val readingText =
    """syntax = "proto2";
      |package leg;
      |message Reading {
      |  required int64 id = 1;
      |  optional int32 level = 2 [default = 7];
      |  optional Kind kind = 3;
      |  repeated sint64 deltas = 4 [packed = true];
      |  repeated fixed32 raw = 5;
      |  repeated Kind kinds = 6;
      |  map<int32, bool> flags = 7;
      |  optional string note = 8;
      |  repeated double ds = 9 [packed = true];
      |  enum Kind { A = 1; B = 2; }
      |}
      |""".stripMargin

  /** [[readingText]], by hand. */
  private val readingDescriptor: Descriptor = {
    val repeated = Label.LABEL_REPEATED
    val reading = DescriptorProto
      .newBuilder()
      .setName("Reading")
      .addField(field("id", 1, Type.TYPE_INT64, Label.LABEL_REQUIRED))
      .addField(field("level", 2, Type.TYPE_INT32, default = "7"))
      .addField(field("kind", 3, Type.TYPE_ENUM, typeName = ".leg.Reading.Kind"))
      .addField(field("deltas", 4, Type.TYPE_SINT64, repeated, packed = Some(true)))
      .addField(field("raw", 5, Type.TYPE_FIXED32, repeated))
      .addField(field("kinds", 6, Type.TYPE_ENUM, repeated, ".leg.Reading.Kind"))
      .addField(field("flags", 7, Type.TYPE_MESSAGE, repeated, ".leg.Reading.FlagsEntry"))
      .addField(field("note", 8, Type.TYPE_STRING))
      .addField(field("ds", 9, Type.TYPE_DOUBLE, repeated, packed = Some(true)))
      .addEnumType(enumOf("Kind", "A" -> 1, "B" -> 2))
      .addNestedType(mapEntry("FlagsEntry", Type.TYPE_INT32, Type.TYPE_BOOL))
    build(
      FileDescriptorProto
        .newBuilder()
        .setName("reading.proto")
        .setPackage("leg")
        .setSyntax("proto2")
        .addMessageType(reading)
        .build()).findMessageTypeByName("Reading")
  }

  // ---- a descriptor of what our parser read, for the .proto files of structs ----

  private val scalarTypes: Map[String, Type] = Map(
    "int32" -> Type.TYPE_INT32,
    "int64" -> Type.TYPE_INT64,
    "uint32" -> Type.TYPE_UINT32,
    "uint64" -> Type.TYPE_UINT64,
    "sint32" -> Type.TYPE_SINT32,
    "sint64" -> Type.TYPE_SINT64,
    "fixed32" -> Type.TYPE_FIXED32,
    "fixed64" -> Type.TYPE_FIXED64,
    "sfixed32" -> Type.TYPE_SFIXED32,
    "sfixed64" -> Type.TYPE_SFIXED64,
    "float" -> Type.TYPE_FLOAT,
    "double" -> Type.TYPE_DOUBLE,
    "bool" -> Type.TYPE_BOOL,
    "string" -> Type.TYPE_STRING,
    "bytes" -> Type.TYPE_BYTES
  )

  private def typeOf(t: ProtoType): (Type, String) = t match {
    case ProtoScalar(name) => (scalarTypes(name), null)
    case ProtoMessageRef(name) => (Type.TYPE_MESSAGE, s".$name")
    case ProtoEnumRef(name) => (Type.TYPE_ENUM, s".$name")
    case other => fail(s"no descriptor type for $other")
  }

  /** A proto3 message without oneofs, as `fromSqlType` writes them. */
  private def messageProto(m: ProtoMessage): DescriptorProto = {
    val b = DescriptorProto.newBuilder().setName(m.name)
    m.fields.foreach { f =>
      f.fieldType match {
        case ProtoMap(k, v) =>
          val entry = ProtoSchemas.mapEntryName(f.name)
          val (vt, vName) = typeOf(v)
          b.addNestedType(mapEntry(entry, typeOf(k)._1, vt, vName))
          b.addField(field(f.name, f.number, Type.TYPE_MESSAGE, Label.LABEL_REPEATED, s".${m.fullName}.$entry"))
        case t =>
          val (ft, name) = typeOf(t)
          if (f.label == "optional") {
            b.addField(field(f.name, f.number, ft, typeName = name, oneof = b.getOneofDeclCount, proto3Optional = true))
            b.addOneofDecl(OneofDescriptorProto.newBuilder().setName(s"_${f.name}"))
          } else
            b.addField(
              field(f.name, f.number, ft, if (f.repeated) Label.LABEL_REPEATED else Label.LABEL_OPTIONAL, name))
      }
    }
    m.messages.foreach(n => b.addNestedType(messageProto(n)))
    b.build()
  }

  private def descriptorOf(file: ProtoFile, message: String): Descriptor = {
    val proto = FileDescriptorProto.newBuilder().setName("struct.proto").setSyntax(file.syntax)
    if (file.packageName.nonEmpty) proto.setPackage(file.packageName)
    file.imports.foreach(proto.addDependency)
    file.messages.foreach(m => proto.addMessageType(messageProto(m)))
    val built = build(proto.build())
    built.findMessageTypeByName(message.split('.').last)
  }

  // ---- a row as a message of protobuf-java ----

  private def integral(dataType: DataType, from: SpecializedGetters, at: Int): Long = dataType match {
    case ByteType => from.getByte(at).toLong
    case ShortType => from.getShort(at).toLong
    case IntegerType => from.getInt(at).toLong
    case _ => from.getLong(at)
  }

  /** Protobuf's Timestamp (nanos from 0 up) or Duration (nanos of the seconds' sign) of Spark's microseconds. */
  private def time(descriptor: Descriptor, micros: Long): DynamicMessage = {
    val (seconds, nanos) =
      if (descriptor.getName == "Timestamp") (Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000)
      else (micros / 1000000L, micros % 1000000L * 1000)
    DynamicMessage
      .newBuilder(descriptor)
      .setField(descriptor.findFieldByName("seconds"), Long.box(seconds))
      .setField(descriptor.findFieldByName("nanos"), Int.box(nanos.toInt))
      .build()
  }

  private def javaValue(fd: FieldDescriptor, dataType: DataType, from: SpecializedGetters, at: Int): AnyRef =
    fd.getJavaType match {
      case FieldDescriptor.JavaType.INT => Int.box(integral(dataType, from, at).toInt)
      case FieldDescriptor.JavaType.LONG => Long.box(integral(dataType, from, at))
      case FieldDescriptor.JavaType.FLOAT => Float.box(from.getFloat(at))
      case FieldDescriptor.JavaType.DOUBLE =>
        Double.box(if (dataType == FloatType) from.getFloat(at).toDouble else from.getDouble(at))
      case FieldDescriptor.JavaType.BOOLEAN => Boolean.box(from.getBoolean(at))
      case FieldDescriptor.JavaType.STRING => from.getUTF8String(at).toString
      case FieldDescriptor.JavaType.BYTE_STRING => ByteString.copyFrom(from.getBinary(at))
      case FieldDescriptor.JavaType.ENUM => fd.getEnumType.findValueByName(from.getUTF8String(at).toString)
      case FieldDescriptor.JavaType.MESSAGE =>
        dataType match {
          case s: StructType => message(fd.getMessageType, s, from.getStruct(at, s.length))
          case _ => time(fd.getMessageType, from.getLong(at))
        }
    }

  /** The message `row` is, built with protobuf-java's API, field by field. */
  private def message(descriptor: Descriptor, struct: StructType, row: InternalRow): DynamicMessage = {
    val b = DynamicMessage.newBuilder(descriptor)
    struct.fields.zipWithIndex.foreach { case (sf, i) =>
      if (!row.isNullAt(i)) {
        val fd = descriptor.findFieldByName(sf.name)
        sf.dataType match {
          case MapType(kt, vt, _) =>
            val entry = fd.getMessageType
            val (kf, vf) = (entry.findFieldByNumber(1), entry.findFieldByNumber(2))
            val valueDefault: AnyRef =
              if (vf.getJavaType == FieldDescriptor.JavaType.MESSAGE)
                DynamicMessage.getDefaultInstance(vf.getMessageType)
              else vf.getDefaultValue
            val prototype =
              MapEntry.newDefaultInstance[AnyRef, AnyRef](
                entry,
                kf.getLiteType,
                kf.getDefaultValue,
                vf.getLiteType,
                valueDefault)
            val m = row.getMap(i)
            (0 until m.numElements()).foreach { j =>
              val e = prototype.newBuilderForType()
              e.setKey(javaValue(kf, kt, m.keyArray(), j))
              e.setValue(javaValue(vf, vt, m.valueArray(), j))
              b.addRepeatedField(fd, e.build())
            }
          case ArrayType(et, _) =>
            val a = row.getArray(i)
            (0 until a.numElements()).foreach(j => b.addRepeatedField(fd, javaValue(fd, et, a, j)))
          case dt => b.setField(fd, javaValue(fd, dt, row, i))
        }
      }
    }
    b.build()
  }

  // ---- rows of a message ----

  /** A row of the message's Spark type, its enums' names among theirs, at most one member of a oneof set. */
  private def rowFor(file: ProtoFile, m: ProtoMessage, struct: StructType): Gen[InternalRow] = {
    val fields = struct.fields.toList.map { sf =>
      val f = m.fields.find(_.name == sf.name).get
      val one = (f.fieldType, sf.dataType) match {
        case (ProtoMap(_, v), MapType(kt, vt, _)) =>
          for {
            n <- Gen.choose(0, 3)
            keys <- Gen.listOfN(n, ProtoValues.nonNullValue(kt)).map(_.distinct)
            values <- Gen.listOfN(keys.size, element(file, v, vt))
          } yield map(keys.zip(values): _*)
        case (t, ArrayType(et, _)) =>
          Gen.choose(0, 4).flatMap(n => Gen.listOfN(n, element(file, t, et))).map(vs => array(vs: _*))
        case (t, dt) => element(file, t, dt)
      }
      if (sf.nullable) Gen.frequency(1 -> Gen.const(null), 3 -> one) else one
    }
    Gen.sequence[List[Any], Any](fields).map { values =>
      val set = scala.collection.mutable.Set.empty[String]
      val kept = values.zip(struct.fields).map { case (v, sf) =>
        m.fields.find(_.name == sf.name).get.oneof match {
          case Some(o) if v != null && !set.add(o) => null
          case _ => v
        }
      }
      row(kept: _*)
    }
  }

  private def element(file: ProtoFile, t: ProtoType, dataType: DataType): Gen[Any] = (t, dataType) match {
    case (ProtoEnumRef(name), _) => Gen.oneOf(file.enumType(name).values.map(_._1)).map(utf8)
    case (ProtoMessageRef(name), s: StructType) => rowFor(file, file.message(name), s)
    case (_, dt) => ProtoValues.nonNullValue(dt)
  }

  // ---- the checks ----

  /** Our bytes are protobuf-java's for the row's message, and protobuf-java reads them as that message. */
  private def sameAsProtobufJava(
      encoder: ProtoEncoder,
      descriptor: Descriptor,
      struct: StructType,
      row: InternalRow): Unit = {
    val ours = encoder.encode(row)
    val (index, used) = GsrMessageIndex.read(ours, 0, ours.length)
    assert(index == encoder.messageIndex)
    val bytes = ours.drop(used)
    val expected = message(descriptor, struct, row)
    assert(bytes.toSeq == expected.toByteArray.toSeq, expected)
    val parsed = DynamicMessage.parseFrom(descriptor, bytes)
    assert(parsed == expected)
    assert(parsed.getUnknownFields.asMap.isEmpty)
  }

  test("proto3 rows of every field kind: protobuf-java writes exactly our bytes, and reads them as the row") {
    val file = ProtoParser.parse(orderText)
    val struct = ProtoSchemas.sqlType(file, "or.Order")
    val encoder = new ProtoEncoder(file, "or.Order", struct)
    forAll(rowFor(file, file.message("or.Order"), struct)) { row =>
      sameAsProtobufJava(encoder, orderDescriptor, struct, row)
    }
  }

  test("proto2 rows: required, declared defaults, packed only when declared, closed enums, maps") {
    val file = ProtoParser.parse(readingText)
    val struct = ProtoSchemas.sqlType(file, "leg.Reading")
    val encoder = new ProtoEncoder(file, "leg.Reading", struct)
    forAll(rowFor(file, file.message("leg.Reading"), struct)) { row =>
      sameAsProtobufJava(encoder, readingDescriptor, struct, row)
    }
    // A set field equal to its declared default is written, as protobuf-java writes any field set.
    sameAsProtobufJava(
      encoder,
      readingDescriptor,
      struct,
      row(1L, 7, utf8("A"), array(), array(), array(), null, null, null))
  }

  test("narrower columns: protobuf-java writes the same bytes of the widened values") {
    val file = ProtoParser.parse(orderText)
    val struct = StructType.fromDDL("id tinyint, cash smallint, price float, counts map<int, int>, big int")
    val encoder = new ProtoEncoder(file, "or.Order", struct)
    val widened = Gen.sequence[List[Any], Any](struct.fields.toList.map(f => ProtoValues.value(f.dataType, f.nullable)))
    forAll(widened.map(vs => row(vs: _*))) { row =>
      sameAsProtobufJava(encoder, orderDescriptor, struct, row)
    }
  }

  test("the .proto files of random structs: protobuf-java writes exactly our bytes of their rows") {
    val cases = for {
      struct <- ProtoValues.structType(3)
      name <- Gen.oneOf("Row", "shop.Row")
      rows <- Gen.listOfN(3, ProtoValues.rowOf(struct))
    } yield (struct, name, rows)
    forAll(cases) { case (struct, name, rows) =>
      val file = ProtoParser.parse(ProtoSchemas.fromSqlType(struct, name))
      val encoder = new ProtoEncoder(file, name, struct)
      val descriptor = descriptorOf(file, name)
      assert(descriptor.getFullName == name)
      rows.foreach(sameAsProtobufJava(encoder, descriptor, struct, _))
    }
  }

  test("the hand-built descriptors are those of the texts our parser reads") {
    def shape(d: Descriptor): Seq[Any] = d.getFields.asScala.toSeq.map { f =>
      (f.getName, f.getNumber, f.isRepeated, f.isPacked, f.hasPresence, f.isRequired, f.getType.name)
    } ++ d.getNestedTypes.asScala.filterNot(_.getOptions.getMapEntry).flatMap(shape)
    def ours(file: ProtoFile, m: ProtoMessage): Seq[Any] = m.fields.map { f =>
      val t = f.fieldType match {
        case ProtoScalar(n) => scalarTypes(n).name.stripPrefix("TYPE_")
        case _: ProtoEnumRef => "ENUM"
        case _ => "MESSAGE"
      }
      val presence = !f.repeated && !f.implicitPresence
      (f.name, f.number, f.repeated, f.packed, presence, f.required, t)
    } ++ m.messages.flatMap(ours(file, _))
    val order = ProtoParser.parse(orderText)
    assert(shape(orderDescriptor) == ours(order, order.message("or.Order")))
    val reading = ProtoParser.parse(readingText)
    assert(shape(readingDescriptor) == ours(reading, reading.message("leg.Reading")))
  }
}
