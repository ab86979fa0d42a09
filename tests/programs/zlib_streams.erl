%% OTP's zlib module over clause's NIFs (core/bif/zlib.c): the one-shot
%% functions and their exact bytes (an MD5 of each), the stream API with
%% several chunks and flush modes, inflate of concatenated, incomplete and
%% corrupt data, safeInflate, inflateChunk, dictionaries, checksums, the
%% controlling process, closed streams and a process that ends holding one.
-module(zlib_streams).
-export([main/1]).
-compile(nowarn_deprecated_function).

main(_) ->
    one_shot(),
    streams(),
    params_and_reset(),
    concatenated(),
    broken(),
    safe_inflate(),
    inflate_chunk(),
    dictionaries(),
    checksums(),
    controllers(),
    closed(),
    dying_owner(),
    bad_arguments(),
    ok.

%% Text that compresses, and bytes from a small generator that do not:
%% grown as binaries, so that the heap stays small (the goldens also run
%% with a collection at every call).
text(N) -> text(1, N, <<>>).
text(I, N, Acc) when I > N -> Acc;
text(I, N, Acc) -> text(I + 1, N, <<Acc/binary, "line ", (integer_to_binary(I))/binary, " of the zlib test, ">>).

noise(N) -> noise(N, 12345, <<>>).
noise(0, _, Acc) -> Acc;
noise(N, S, Acc) ->
    S1 = (S * 1103515245 + 12345) band 16#7fffffff,
    noise(N - 1, S1, <<Acc/binary, ((S1 bsr 16) band 255)>>).

md5(IoData) -> binary:decode_unsigned(erlang:md5(IoData)) bsr 96.

show(Label, Term) -> io:format("~s: ~p~n", [Label, Term]).

t(F) ->
    try F() of
        V -> {ok, V}
    catch
        C:R -> {C, R}
    end.

one_shot() ->
    T = text(2000),
    N = noise(12000),
    lists:foreach(
      fun({Name, Data}) ->
              C = zlib:compress(Data),
              Z = zlib:zip(Data),
              G = zlib:gzip(Data),
              show(Name ++ " sizes", {byte_size(Data), byte_size(C), byte_size(Z), byte_size(G)}),
              show(Name ++ " md5", {md5(C), md5(Z), md5(G)}),
              show(Name ++ " round trips",
                   {zlib:uncompress(C) =:= Data, zlib:unzip(Z) =:= Data, zlib:gunzip(G) =:= Data})
      end, [{"text", T}, {"noise", N}, {"empty", <<>>}]),
    show("iolist input", zlib:compress(["ab", [$c, <<"de">>], <<>>])),
    show("compress hello", zlib:compress(<<"hello">>)),
    show("uncompress iolist", zlib:uncompress([<<120,156>>, [<<203,72,205,201,201,7,0,6,44,2,21>>]])).

streams() ->
    T = text(3000),
    Z = zlib:open(),
    show("buf size", zlib:getBufSize(Z)),
    ok = zlib:deflateInit(Z, best_compression),
    <<A:20000/binary, B:20000/binary, C:20000/binary, Rest/binary>> = T,
    O1 = zlib:deflate(Z, A),
    O2 = zlib:deflate(Z, B, sync),
    O3 = zlib:deflate(Z, C, full),
    O4 = zlib:deflate(Z, Rest, none),
    O5 = zlib:deflate(Z, <<>>, finish),
    show("chunk sizes", [iolist_size(O) || O <- [O1, O2, O3, O4, O5]]),
    show("sync ends", binary:part(iolist_to_binary(O2), iolist_size(O2), -4)),
    All = iolist_to_binary([O1, O2, O3, O4, O5]),
    show("stream md5", md5(All)),
    show("deflateEnd", zlib:deflateEnd(Z)),
    ok = zlib:inflateInit(Z),
    Out = zlib:inflate(Z, All),
    show("inflated", iolist_to_binary(Out) =:= T),
    show("inflate crc32", zlib:crc32(Z)),
    show("inflateEnd", zlib:inflateEnd(Z)),
    %% Inflate byte by byte, fed in small pieces.
    ok = zlib:inflateInit(Z),
    Pieces = [zlib:inflate(Z, binary:part(All, P, min(997, byte_size(All) - P)))
              || P <- lists:seq(0, byte_size(All) - 1, 997)],
    show("pieces", iolist_to_binary(Pieces) =:= T),
    show("inflateEnd", zlib:inflateEnd(Z)),
    %% Raw streams keep the plain text's CRC.
    ok = zlib:deflateInit(Z, default, deflated, -15, 8, default),
    R1 = zlib:deflate(Z, <<"raw data, raw data, raw data">>, finish),
    show("raw deflate crc32", {zlib:crc32(Z), erlang:crc32(<<"raw data, raw data, raw data">>)}),
    show("raw deflateEnd", zlib:deflateEnd(Z)),
    ok = zlib:inflateInit(Z, -15),
    show("raw inflate", iolist_to_binary(zlib:inflate(Z, R1))),
    show("raw inflate crc32", zlib:crc32(Z)),
    show("raw inflateEnd", zlib:inflateEnd(Z)),
    ok = zlib:deflateInit(Z),
    _ = zlib:deflate(Z, <<"not raw">>, finish),
    show("zlib deflate crc32", zlib:crc32(Z)),
    ok = zlib:deflateEnd(Z),
    show("strategies",
         [begin
              ok = zlib:deflateInit(Z, 6, deflated, 15, Mem, S),
              Sz = iolist_size(zlib:deflate(Z, T, finish)),
              ok = zlib:deflateEnd(Z),
              {S, Mem, Sz}
          end || {S, Mem} <- [{default, 8}, {filtered, 9}, {huffman_only, 1}, {rle, 5}]]),
    show("levels",
         [begin
              ok = zlib:deflateInit(Z, L),
              Sz = iolist_size(zlib:deflate(Z, T, finish)),
              ok = zlib:deflateEnd(Z),
              {L, Sz}
          end || L <- [none, best_speed, 3, default, best_compression]]),
    ok = zlib:close(Z).

params_and_reset() ->
    T = text(1500),
    Z = zlib:open(),
    ok = zlib:deflateInit(Z, none),
    P1 = zlib:deflate(Z, binary:part(T, 0, 10000)),
    show("deflateParams", zlib:deflateParams(Z, best_compression, filtered)),
    P2 = zlib:deflate(Z, binary:part(T, 10000, byte_size(T) - 10000), finish),
    All = iolist_to_binary([P1, P2]),
    show("params sizes", {iolist_size(P1), iolist_size(P2), md5(All)}),
    show("params round trip", zlib:uncompress(All) =:= T),
    show("deflateReset", zlib:deflateReset(Z)),
    R = iolist_to_binary(zlib:deflate(Z, <<"after reset">>, finish)),
    show("after reset", {R, zlib:uncompress(R)}),
    %% deflateEnd before the stream was finished.
    show("deflateReset again", zlib:deflateReset(Z)),
    _ = zlib:deflate(Z, T),
    show("unfinished deflateEnd", t(fun() -> zlib:deflateEnd(Z) end)),
    show("deflateEnd twice", t(fun() -> zlib:deflateEnd(Z) end)),
    ok = zlib:inflateInit(Z),
    _ = zlib:inflate(Z, zlib:compress(<<"one">>)),
    show("inflateReset", zlib:inflateReset(Z)),
    show("after inflateReset", zlib:inflate(Z, zlib:compress(<<"two">>))),
    show("inflateEnd", zlib:inflateEnd(Z)),
    zlib:close(Z).

concatenated() ->
    A = zlib:compress(<<"first stream">>),
    B = zlib:compress(<<"second stream">>),
    Z = zlib:open(),
    ok = zlib:inflateInit(Z),
    show("cut", zlib:inflate(Z, [A, B])),
    show("cut inflateEnd", t(fun() -> zlib:inflateEnd(Z) end)),
    ok = zlib:inflateInit(Z, 15, reset),
    show("reset", zlib:inflate(Z, [A, B])),
    show("reset inflateEnd", t(fun() -> zlib:inflateEnd(Z) end)),
    ok = zlib:inflateInit(Z, 15, error),
    show("error", t(fun() -> zlib:inflate(Z, [A, B]) end)),
    show("error inflateEnd", t(fun() -> zlib:inflateEnd(Z) end)),
    G = [zlib:gzip(<<"member one, ">>), zlib:gzip(<<"member two">>)],
    show("gunzip members", zlib:gunzip(G)),
    show("auto header", begin
                            ok = zlib:inflateInit(Z, 32 + 15),
                            R = iolist_to_binary(zlib:inflate(Z, zlib:gzip(<<"either header">>))),
                            ok = zlib:inflateEnd(Z),
                            R
                        end),
    zlib:close(Z).

broken() ->
    C = zlib:compress(text(100)),
    Short = binary:part(C, 0, byte_size(C) - 10),
    show("truncated uncompress", t(fun() -> zlib:uncompress(Short) end)),
    show("truncated unzip", t(fun() -> zlib:unzip(binary:part(zlib:zip(text(100)), 0, 30)) end)),
    show("truncated gunzip", t(fun() -> zlib:gunzip(binary:part(zlib:gzip(<<"abc">>), 0, 12)) end)),
    show("garbage", t(fun() -> zlib:uncompress(<<"this is not zlib data">>) end)),
    show("short", t(fun() -> zlib:uncompress(<<1, 2, 3>>) end)),
    show("not iodata", t(fun() -> zlib:uncompress(an_atom) end)),
    <<H:2/binary, Body/binary>> = C,
    Flipped = <<H/binary, ((bnot binary:first(Body)) band 255), (binary:part(Body, 1, byte_size(Body) - 1))/binary>>,
    show("corrupt body", t(fun() -> zlib:uncompress(Flipped) end)),
    BadSum = <<(binary:part(C, 0, byte_size(C) - 1))/binary, 0>>,
    show("bad checksum", t(fun() -> zlib:uncompress(BadSum) end)),
    show("gunzip of zlib", t(fun() -> zlib:gunzip(C) end)),
    Z = zlib:open(),
    ok = zlib:inflateInit(Z),
    Partial = iolist_to_binary(zlib:inflate(Z, Short)),
    show("partial inflate", {byte_size(Partial), md5(Partial), binary:part(text(100), 0, byte_size(Partial)) =:= Partial}),
    show("partial inflateEnd", t(fun() -> zlib:inflateEnd(Z) end)),
    ok = zlib:inflateInit(Z),
    show("data error", t(fun() -> zlib:inflate(Z, <<120, 156, 255, 255, 255>>) end)),
    show("after data error", t(fun() -> zlib:inflateEnd(Z) end)),
    zlib:close(Z).

safe_inflate() ->
    Zeros = zlib:compress(binary:copy(<<0>>, 100000)),
    Z = zlib:open(),
    ok = zlib:inflateInit(Z),
    show("safe", safe_loop(Z, Zeros, [])),
    ok = zlib:inflateEnd(Z),
    ok = zlib:inflateInit(Z),
    show("safe small", zlib:safeInflate(Z, zlib:compress(<<"small">>))),
    show("safe again", zlib:safeInflate(Z, [])),
    ok = zlib:inflateEnd(Z),
    zlib:close(Z).

safe_loop(Z, In, Acc) ->
    case zlib:safeInflate(Z, In) of
        {continue, Out} -> safe_loop(Z, [], [{continue, iolist_size(Out)} | Acc]);
        {finished, Out} -> lists:reverse([{finished, iolist_size(Out)} | Acc])
    end.

inflate_chunk() ->
    T = text(300),
    C = zlib:compress(T),
    Z = zlib:open(),
    ok = zlib:inflateInit(Z),
    ok = zlib:setBufSize(Z, 2048),
    show("buf size set", zlib:getBufSize(Z)),
    {more, First} = zlib:inflateChunk(Z, C),
    Sizes = chunk_loop(Z, [iolist_size(First)]),
    show("chunks", Sizes),
    show("chunk total", {lists:sum(Sizes), byte_size(T)}),
    ok = zlib:inflateEnd(Z),
    show("bad buf size", t(fun() -> zlib:setBufSize(Z, 16) end)),
    zlib:close(Z).

chunk_loop(Z, Acc) ->
    case zlib:inflateChunk(Z) of
        {more, Out} -> chunk_loop(Z, [iolist_size(Out) | Acc]);
        Out -> lists:reverse([iolist_size(Out) | Acc])
    end.

dictionaries() ->
    Dict = <<"the quick brown fox jumps over the lazy dog">>,
    Plain = <<"the lazy dog and the quick brown fox jump">>,
    Z = zlib:open(),
    ok = zlib:deflateInit(Z),
    Sum = zlib:deflateSetDictionary(Z, Dict),
    show("dictionary adler", {Sum, erlang:adler32(Dict)}),
    C = iolist_to_binary(zlib:deflate(Z, Plain, finish)),
    ok = zlib:deflateEnd(Z),
    show("with dictionary", {byte_size(C), md5(C)}),
    ok = zlib:inflateInit(Z),
    show("need dictionary", t(fun() -> zlib:inflate(Z, C) end)),
    show("wrong dictionary", t(fun() -> zlib:inflateSetDictionary(Z, <<"wrong">>) end)),
    show("inflateSetDictionary", zlib:inflateSetDictionary(Z, [Dict])),
    show("inflated", iolist_to_binary(zlib:inflate(Z, []))),
    show("inflateGetDictionary", zlib:inflateGetDictionary(Z)),
    ok = zlib:inflateEnd(Z),
    ok = zlib:inflateInit(Z),
    show("no dictionary option", zlib:inflate(Z, C, [{exception_on_need_dict, false}])),
    ok = zlib:inflateSetDictionary(Z, Dict),
    show("then", iolist_to_binary(zlib:inflate(Z, [], [{exception_on_need_dict, false}]))),
    ok = zlib:inflateEnd(Z),
    %% A dictionary whose Adler-32 needs 32 bits: OTP answers it as a C int.
    Big = binary:copy(<<"zzzzzzzz">>, 100),
    ok = zlib:deflateInit(Z),
    show("big dictionary adler", {zlib:deflateSetDictionary(Z, Big), erlang:adler32(Big)}),
    CB = iolist_to_binary(zlib:deflate(Z, <<"zzzzzzzz">>, finish)),
    ok = zlib:deflateEnd(Z),
    ok = zlib:inflateInit(Z),
    show("big need dictionary", t(fun() -> zlib:inflate(Z, CB) end)),
    ok = zlib:inflateSetDictionary(Z, Big),
    show("big inflated", iolist_to_binary(zlib:inflate(Z, []))),
    ok = zlib:inflateEnd(Z),
    %% Raw streams: no header asks for the dictionary.
    ok = zlib:deflateInit(Z, default, deflated, -15, 8, default),
    show("raw dictionary adler", zlib:deflateSetDictionary(Z, Dict)),
    RC = iolist_to_binary(zlib:deflate(Z, Plain, finish)),
    ok = zlib:deflateEnd(Z),
    ok = zlib:inflateInit(Z, -15),
    ok = zlib:inflateSetDictionary(Z, Dict),
    show("raw with dictionary", iolist_to_binary(zlib:inflate(Z, RC))),
    ok = zlib:inflateEnd(Z),
    ok = zlib:deflateInit(Z),
    _ = zlib:deflate(Z, <<"x">>),
    show("dictionary too late", t(fun() -> zlib:deflateSetDictionary(Z, Dict) end)),
    _ = zlib:deflate(Z, <<>>, finish),
    ok = zlib:deflateEnd(Z),
    zlib:close(Z).

checksums() ->
    Z = zlib:open(),
    D = <<"checksum data">>,
    show("crc32/2", zlib:crc32(Z, D)),
    show("crc32/3", zlib:crc32(Z, zlib:crc32(Z, <<"check">>), <<"sum data">>)),
    show("adler32/2", zlib:adler32(Z, D)),
    show("adler32/3", zlib:adler32(Z, zlib:adler32(Z, <<"check">>), <<"sum data">>)),
    show("crc32_combine", zlib:crc32_combine(Z, zlib:crc32(Z, <<"check">>), zlib:crc32(Z, <<"sum data">>), 8)),
    show("adler32_combine", zlib:adler32_combine(Z, zlib:adler32(Z, <<"check">>), zlib:adler32(Z, <<"sum data">>), 8)),
    show("crc32/1 uninitialised", t(fun() -> zlib:crc32(Z) end)),
    ok = zlib:deflateInit(Z, default, deflated, -15, 8, default),
    _ = zlib:deflate(Z, <<"check">>),
    _ = zlib:deflate(Z, <<"sum data">>, finish),
    show("crc32/1 raw", {zlib:crc32(Z), erlang:crc32(D)}),
    ok = zlib:deflateEnd(Z),
    show("crc32 not a stream", t(fun() -> zlib:crc32(not_a_stream, D) end)),
    zlib:close(Z).

controllers() ->
    Self = self(),
    Z = zlib:open(),
    ok = zlib:deflateInit(Z),
    Other = spawn(fun() ->
                          Self ! {tried, t(fun() -> zlib:deflate(Z, <<"x">>) end),
                                  t(fun() -> zlib:close(Z) end),
                                  t(fun() -> zlib:set_controlling_process(Z, self()) end)},
                          receive
                              go ->
                                  R = t(fun() -> iolist_to_binary(zlib:deflate(Z, <<"handed over">>, finish)) end),
                                  E = t(fun() -> zlib:deflateEnd(Z) end),
                                  Self ! {used, R, E},
                                  ok = zlib:set_controlling_process(Z, Self),
                                  Self ! back
                          end
                  end),
    receive {tried, A, B, C} -> show("other process", {A, B, C}) end,
    show("set_controlling_process", zlib:set_controlling_process(Z, Other)),
    show("old controller", t(fun() -> zlib:deflate(Z, <<"x">>) end)),
    Other ! go,
    receive {used, R, E} -> show("new controller", {R, E}) end,
    receive back -> ok end,
    show("back again", {zlib:inflateInit(Z), iolist_to_binary(zlib:inflate(Z, zlib:compress(<<"home">>)))}),
    ok = zlib:inflateEnd(Z),
    show("to itself", zlib:set_controlling_process(Z, self())),
    show("bad pid", t(fun() -> zlib:set_controlling_process(Z, not_a_pid) end)),
    ok = zlib:close(Z),
    %% Handed to a process that ends without using it.
    Z2 = zlib:open(),
    {Pid, Ref} = spawn_monitor(fun() -> ok end),
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    show("to an ended process", zlib:set_controlling_process(Z2, Pid)),
    show("given away", t(fun() -> zlib:deflateInit(Z2) end)),
    _ = zlib:open(). %% its own open frees orphans

closed() ->
    Z = zlib:open(),
    show("deflate before init", t(fun() -> zlib:deflate(Z, <<"x">>) end)),
    show("inflate before init", t(fun() -> zlib:inflate(Z, <<"x">>) end)),
    show("deflateEnd before init", t(fun() -> zlib:deflateEnd(Z) end)),
    show("inflateGetDictionary before init", t(fun() -> zlib:inflateGetDictionary(Z) end)),
    ok = zlib:inflateInit(Z),
    show("init twice", t(fun() -> zlib:inflateInit(Z) end)),
    show("deflateInit on inflate", t(fun() -> zlib:deflateInit(Z) end)),
    show("deflate on inflate", t(fun() -> zlib:deflate(Z, <<"x">>) end)),
    show("close", zlib:close(Z)),
    show("close twice", t(fun() -> zlib:close(Z) end)),
    show("deflateInit after close", t(fun() -> zlib:deflateInit(Z) end)),
    show("inflate after close", t(fun() -> zlib:inflate(Z, <<"x">>) end)),
    show("getBufSize after close", zlib:getBufSize(Z)),
    Self = self(),
    spawn(fun() -> Self ! {closed_elsewhere, t(fun() -> zlib:close(Z) end)} end),
    receive {closed_elsewhere, R} -> show("closed, from another process", R) end,
    %% Many streams opened and closed by one process.
    show("many", lists:usort([zlib:uncompress(zlib:compress(<<"again">>)) || _ <- lists:seq(1, 200)])),
    Zs = [zlib:open() || _ <- lists:seq(1, 40)],
    [ok = zlib:close(Zi) || Zi <- Zs],
    show("oldest closed twice", element(1, t(fun() -> zlib:close(hd(Zs)) end))),
    show("newest closed twice", t(fun() -> zlib:close(lists:last(Zs)) end)).

dying_owner() ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(fun() ->
                                       Z = zlib:open(),
                                       ok = zlib:deflateInit(Z),
                                       _ = zlib:deflate(Z, text(500)),
                                       Z2 = zlib:open(),
                                       ok = zlib:inflateInit(Z2),
                                       _ = zlib:inflate(Z2, binary:part(zlib:compress(text(50)), 0, 100)),
                                       Self ! {stream, Z},
                                       exit(done)
                               end),
    Z = receive {stream, S} -> S end,
    receive {'DOWN', Ref, process, Pid, Why} -> show("owner ended", Why) end,
    %% OTP: not_on_controlling_process; clause freed it: badarg.
    show("its stream", element(1, t(fun() -> zlib:deflate(Z, <<"x">>) end))),
    {Pid2, Ref2} = spawn_monitor(fun() ->
                                         Z3 = zlib:open(),
                                         ok = zlib:inflateInit(Z3),
                                         exit(t(fun() -> zlib:inflate(Z3, <<"not zlib at all">>) end))
                                 end),
    receive {'DOWN', Ref2, process, Pid2, Reason} -> show("failed owner", Reason) end.

bad_arguments() ->
    Z = zlib:open(),
    show("bad level", t(fun() -> zlib:deflateInit(Z, 10) end)),
    show("bad method", t(fun() -> zlib:deflateInit(Z, default, stored, 15, 8, default) end)),
    show("bad window", t(fun() -> zlib:deflateInit(Z, default, deflated, 16, 8, default) end)),
    show("bad memlevel", t(fun() -> zlib:deflateInit(Z, default, deflated, 15, 10, default) end)),
    show("bad strategy", t(fun() -> zlib:deflateInit(Z, default, deflated, 15, 8, fast) end)),
    show("window -8", t(fun() -> zlib:deflateInit(Z, default, deflated, -8, 8, default) end)),
    show("window 8", t(fun() -> zlib:deflateInit(Z, default, deflated, 8, 8, default) end)),
    show("then", t(fun() -> iolist_size(zlib:deflate(Z, <<"eight">>, finish)) end)),
    show("deflateEnd", t(fun() -> zlib:deflateEnd(Z) end)),
    ok = zlib:deflateInit(Z),
    show("bad flush", t(fun() -> zlib:deflate(Z, <<"x">>, sometimes) end)),
    show("bad data", t(fun() -> zlib:deflate(Z, [foo]) end)),
    show("bad eos", t(fun() -> zlib:inflateInit(zlib:open(), 15, never) end)),
    show("close a ref", t(fun() -> zlib:close(make_ref()) end)),
    show("close an atom", t(fun() -> zlib:close(foo) end)),
    show("compress an atom", t(fun() -> zlib:compress(foo) end)),
    show("gzip of a list of atoms", t(fun() -> zlib:gzip([a, b]) end)).
