// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.net.{BindException, InetAddress, InetSocketAddress}
import java.util

import scala.annotation.nowarn

import io.netty.bootstrap.ServerBootstrap
import io.netty.buffer.{ByteBuf, ByteBufUtil, Unpooled}
import io.netty.channel._
import io.netty.channel.group.DefaultChannelGroup
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.channel.socket.SocketChannel
import io.netty.handler.codec.http._
import io.netty.handler.codec.http2.{
  Http2CodecUtil,
  Http2FrameCodecBuilder,
  Http2MultiplexHandler,
  Http2StreamFrameToHttpObjectCodec
}
import io.netty.handler.codec.ByteToMessageDecoder
import io.netty.util.concurrent.{DefaultThreadFactory, GlobalEventExecutor}

/**
 * The synthetic Kinesis' listening socket, on loopback: one port that speaks HTTP/1.1 (the SDK's synchronous
 * clients) and HTTP/2 without TLS, with prior knowledge (its asynchronous client, which SubscribeToShard
 * needs), so that one `endpoint` serves both clients as Kinesis' does. Each request, read whole, goes to
 * `serve` with an [[SyntheticServer.Exchange]] to answer it by, on the event loop: `serve` hands slow work on.
 *
 * [[unbind]] closes the socket and every connection (clients then meet refused connections, and open
 * subscriptions are cut); [[bind]] opens it again on the same port. Thread-safe.
 */
private[synthetic] final class SyntheticServer(serve: (HttpHeaders, Array[Byte], SyntheticServer.Exchange) => Unit) {
  import SyntheticServer._

  // Netty 4.2 deprecates this group for one of its own, which the Netty 4.1 of Spark 3.5 does not have.
  @nowarn("cat=deprecation")
  private val group = new NioEventLoopGroup(2, new DefaultThreadFactory("synthetic-kinesis-io", true))
  private val connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE)
  @volatile private var listening: Option[Channel] = None
  @volatile private var boundPort = 0

  private val bootstrap = new ServerBootstrap()
    .group(group)
    .channel(classOf[NioServerSocketChannel])
    .option[Integer](ChannelOption.SO_BACKLOG, 1024)
    .option[java.lang.Boolean](ChannelOption.SO_REUSEADDR, true)
    .childOption[java.lang.Boolean](ChannelOption.TCP_NODELAY, true)
    .childHandler(new ChannelInitializer[SocketChannel] {
      override def initChannel(channel: SocketChannel): Unit = {
        connections.add(channel)
        channel.pipeline().addLast(new ProtocolChoice(requests))
      }
    })

  /** What answers a request, the same whether it came over HTTP/1.1 or as an HTTP/2 stream. */
  private def requests: ChannelHandler = new SimpleChannelInboundHandler[FullHttpRequest] {
    override def channelRead0(ctx: ChannelHandlerContext, request: FullHttpRequest): Unit = {
      val keepAlive = HttpUtil.isKeepAlive(request)
      serve(request.headers(), ByteBufUtil.getBytes(request.content()), new Exchange(ctx.channel(), keepAlive))
    }

    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = { ctx.close(); () }
  }

  /** The port it listens on, or listened on before [[unbind]]. */
  def port: Int = boundPort

  /** Listens (again): on a free port the first time, then on the same one. */
  def bind(): Unit = synchronized {
    if (listening.isEmpty) {
      val address = new InetSocketAddress(InetAddress.getLoopbackAddress, boundPort)
      // Rebinding may find the port held a moment longer by the socket just closed.
      val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
      var channel: Option[Channel] = None
      while (channel.isEmpty) {
        val future = bootstrap.bind(address).awaitUninterruptibly()
        if (future.isSuccess) channel = Some(future.channel())
        else if (future.cause().isInstanceOf[BindException] && System.nanoTime() < deadline) Thread.sleep(50)
        else throw future.cause()
      }
      boundPort = channel.get.localAddress().asInstanceOf[InetSocketAddress].getPort
      listening = channel
    }
  }

  /** Stops listening and closes every connection. */
  def unbind(): Unit = synchronized {
    listening.foreach(_.close().awaitUninterruptibly())
    listening = None
    connections.close().awaitUninterruptibly()
    ()
  }

  def close(): Unit = {
    unbind()
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
    ()
  }
}

private[synthetic] object SyntheticServer {

  /** The largest request read: PutRecords' 5 MiB and then some. */
  private val MaxRequestBytes = 16 * 1024 * 1024

  /**
   * One request's answer: whole ([[answer]]), or as a stream of chunks ([[open]], [[push]], [[end]]) that
   * HTTP/2 carries as DATA frames of the request's stream. Thread-safe, as Netty's channels are.
   */
  final class Exchange(channel: Channel, keepAlive: Boolean) {

    /** The whole answer. */
    def answer(status: Int, headers: Seq[(String, String)], body: Array[Byte]): Unit = {
      val response =
        new DefaultFullHttpResponse(
          HttpVersion.HTTP_1_1,
          HttpResponseStatus.valueOf(status),
          Unpooled.wrappedBuffer(body))
      headers.foreach { case (k, v) => response.headers().set(k, v) }
      HttpUtil.setContentLength(response, body.length.toLong)
      HttpUtil.setKeepAlive(response, keepAlive)
      val written = channel.writeAndFlush(response)
      if (!keepAlive) written.addListener(ChannelFutureListener.CLOSE)
      ()
    }

    /** Starts a streamed answer: its status and headers. */
    def open(headers: Seq[(String, String)]): Unit = {
      val response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK)
      headers.foreach { case (k, v) => response.headers().set(k, v) }
      HttpUtil.setTransferEncodingChunked(response, true)
      channel.writeAndFlush(response)
      ()
    }

    /** A chunk of a streamed answer. */
    def push(bytes: Array[Byte]): Unit = {
      channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(bytes)))
      ()
    }

    /** Ends a streamed answer. */
    def end(): Unit = {
      channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
      ()
    }

    /** Whether the client still listens. */
    def active: Boolean = channel.isActive

    /** Whether what was pushed has gone (HTTP/2: within the client's flow control window). */
    def writable: Boolean = channel.isWritable
  }

  /**
   * The first bytes of a connection choose its protocol: HTTP/2's connection preface, or else HTTP/1.1.
   * Then it takes itself out of the pipeline.
   */
  private final class ProtocolChoice(requests: => ChannelHandler) extends ByteToMessageDecoder {
    private val preface = Http2CodecUtil.connectionPrefaceBuf()

    override def decode(ctx: ChannelHandlerContext, in: ByteBuf, out: util.List[AnyRef]): Unit = {
      val seen = math.min(in.readableBytes(), preface.readableBytes())
      val http2 = ByteBufUtil.equals(in, in.readerIndex(), preface, 0, seen)
      if (!http2 || seen == preface.readableBytes()) {
        val pipeline = ctx.pipeline()
        if (http2) {
          val streams = new ChannelInitializer[Channel] {
            override def initChannel(stream: Channel): Unit = {
              stream
                .pipeline()
                .addLast(
                  new Http2StreamFrameToHttpObjectCodec(true),
                  new HttpObjectAggregator(MaxRequestBytes),
                  requests)
              ()
            }
          }
          pipeline.addAfter(ctx.name(), "http2-frames", Http2FrameCodecBuilder.forServer().build())
          pipeline.addAfter("http2-frames", null, new Http2MultiplexHandler(streams))
        } else {
          pipeline.addAfter(ctx.name(), null, requests)
          pipeline.addAfter(ctx.name(), null, new HttpObjectAggregator(MaxRequestBytes))
          pipeline.addAfter(ctx.name(), null, new HttpServerCodec())
        }
        pipeline.remove(this)
        preface.release()
      }
    }
  }
}
