;; The translator's test module (ops.wasm is this file compiled by wabt:
;; wat2wasm --disable-saturating-float-to-int --disable-sign-extension
;;   --disable-multi-value --disable-bulk-memory --disable-reference-types
;;   -o ops.wasm ops.wat).
;; translate_test.go calls its exports on every kiln tier.
(module
  (type $i2i (func (param i32) (result i32)))
  (type $v2i (func (result i32)))
  (memory (export "mem") 1 2)
  (data (i32.const 0) "\01\02\03\04\05\06\07\08\ff")
  (table 5 funcref)
  (elem (i32.const 0) $double $square)
  (elem (i32.const 3) $seven)
  (global $counter (export "counter") (mut i32) (i32.const 0))
  (global $big i64 (i64.const 0x123456789))
  (global $pi (export "pi") f64 (f64.const 3.25))

  (func $double (type $i2i) (i32.add (local.get 0) (local.get 0)))
  (func $square (type $i2i) (i32.mul (local.get 0) (local.get 0)))
  (func $seven (type $v2i) (i32.const 7))

  ;; Arithmetic with constants in either operand.
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "sub_imm") (param i32) (result i32) (i32.sub (local.get 0) (i32.const 5)))
  (func (export "rsub") (param i32) (result i32) (i32.sub (i32.const 5) (local.get 0)))
  (func (export "rshl") (param i32) (result i32) (i32.shl (i32.const 1) (local.get 0)))
  (func (export "lt_const") (param i32) (result i32) (i32.lt_s (i32.const 5) (local.get 0)))
  (func (export "const_fold") (result i32) (i32.mul (i32.const 6) (i32.const 7)))
  (func (export "i64_ops") (param i64 i64) (result i64)
    (i64.xor (i64.rotl (local.get 0) (i64.const 8))
             (i64.div_u (local.get 1) (i64.const 3))))

  ;; Loops and fused compare-and-branch.
  (func (export "fac") (param $n i64) (result i64)
    (local $acc i64)
    (local.set $acc (i64.const 1))
    (block $done
      (loop $loop
        (br_if $done (i64.le_s (local.get $n) (i64.const 1)))
        (local.set $acc (i64.mul (local.get $acc) (local.get $n)))
        (local.set $n (i64.sub (local.get $n) (i64.const 1)))
        (br $loop)))
    (local.get $acc))
  (func $fib (export "fib") (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                     (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
  (func (export "sum_to") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.le_u (local.get $i) (local.get $n))))
    (local.get $s))
  (func (export "eqz_if") (param i64) (result i32)
    (if (result i32) (i64.eqz (local.get 0)) (then (i32.const 10)) (else (i32.const 20))))
  (func (export "sign") (param f64) (result i32)
    (if (result i32) (f64.gt (local.get 0) (f64.const 0))
      (then (i32.const 1))
      (else (if (result i32) (f64.lt (local.get 0) (f64.const 0))
        (then (i32.const -1)) (else (i32.const 0))))))

  ;; Values carried by branches.
  (func (export "br_if_value") (param i32) (result i32)
    (block (result i32)
      (drop (br_if 0 (i32.const 7) (local.get 0)))
      (i32.const 9)))
  (func (export "br_if_deep") (param i32) (result i32)
    ;; The carried value sits above other values: it must move to the
    ;; block's result register only when the branch is taken.
    (i32.add (i32.const 100)
      (block (result i32)
        (i32.add (i32.const 1)
          (i32.add (i32.const 2)
            (br_if 0 (i32.const 40) (local.get 0)))))))
  (func (export "br_if_return") (param i32) (result i32)
    (i32.add (i32.const 100)
      (block (result i32)
        (i32.add (i32.const 1) (br_if 1 (i32.const 40) (local.get 0))))))
  (func (export "br_table_value") (param i32) (result i32)
    (i32.add (i32.const 1000)
      (block $b2 (result i32)
        (i32.add (i32.const 100)
          (block $b1 (result i32)
            (i32.add (i32.const 10)
              (block $b0 (result i32)
                (br_table $b0 $b1 $b2 3 (i32.const 5) (local.get 0)))))))))
  (func (export "switch") (param i32) (result i32)
    (block $d (block $c (block $b (block $a
      (br_table $a $b $c $d (local.get 0)))
      (return (i32.const 100)))
      (return (i32.const 101)))
      (return (i32.const 102)))
    (i32.const 103))
  (func (export "early_return") (param i32) (result i32)
    (if (local.get 0) (then (return (i32.const 1))))
    (block (drop (br_if 1 (i32.const 2) (i32.eq (local.get 0) (i32.const 0)))))
    (i32.const 3))
  (func (export "dead_code") (param i32) (result i32)
    (block $out (result i32)
      (block
        (br $out (local.get 0))
        (i32.add (i32.const 1) (unreachable))
        (drop)
        (loop (br 0))
        (if (i32.const 1) (then (nop)) (else (nop))))
      (i32.const 5)))
  (func (export "loop_result") (param i32) (result i32)
    (loop (result i32) (i32.mul (local.get 0) (i32.const 3))))

  ;; Locals: deferred local.get, local.set retargeting, tee.
  (func (export "swap_sub") (param i32 i32) (result i32)
    local.get 0
    local.get 1
    local.set 0
    local.get 0
    i32.sub)
  (func (export "stale_in_block") (param i32) (result i32)
    ;; local 0 is pushed, then changed inside a block that is not always
    ;; entered: the pushed value must be the old one on both paths.
    local.get 0
    (if (local.get 0) (then (local.set 0 (i32.const 1000))))
    local.get 0
    i32.add)
  (func (export "tee") (param i32) (result i32)
    (local i32 i32)
    (local.set 2 (local.tee 1 (i32.add (local.get 0) (i32.const 1))))
    (i32.add (i32.mul (local.get 1) (i32.const 10)) (local.get 2)))
  (func (export "select") (param i32 i32 i32) (result i32)
    (select (local.get 0) (local.get 1) (local.get 2)))
  (func (export "select_f64") (param i32) (result f64)
    (select (f64.const 1.5) (f64.const -2.5) (local.get 0)))

  ;; Globals.
  (func (export "inc") (result i32)
    (global.set $counter (i32.add (global.get $counter) (i32.const 1)))
    (global.get $counter))
  (func (export "big") (result i64) (global.get $big))

  ;; Memory.
  (func (export "load8_u") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "load8_s") (param i32) (result i32) (i32.load8_s (local.get 0)))
  (func (export "load32") (param i32) (result i32) (i32.load offset=1 (local.get 0)))
  (func (export "load_big_offset") (param i32) (result i32) (i32.load offset=0x80000000 (local.get 0)))
  (func (export "load_max_offset") (param i32) (result i32) (i32.load8_u offset=0xffffffff (local.get 0)))
  (func (export "store_load") (param i32 i64) (result i64)
    (i64.store offset=8 (local.get 0) (local.get 1))
    (i64.load (i32.add (local.get 0) (i32.const 8))))
  (func (export "store16") (param i32 i32) (result i32)
    (i32.store16 (local.get 0) (local.get 1))
    (i32.load (local.get 0)))
  (func (export "f32_mem") (param f32) (result f32)
    (f32.store (i32.const 100) (local.get 0))
    (f32.load (i32.const 100)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
  (func (export "size") (result i32) (memory.size))

  ;; Calls through the table.
  (func (export "call_ind") (param i32 i32) (result i32)
    (call_indirect (type $i2i) (local.get 1) (local.get 0)))

  ;; Floats and conversions.
  (func (export "fmix") (param f64 f64) (result f64)
    (f64.add (f64.mul (local.get 0) (local.get 1))
             (f64.sqrt (f64.abs (local.get 1)))))
  (func (export "fmin") (param f32 f32) (result f32) (f32.min (local.get 0) (local.get 1)))
  (func (export "nearest") (param f64) (result f64) (f64.nearest (local.get 0)))
  (func (export "demote") (param f64) (result f32) (f32.demote_f64 (local.get 0)))
  (func (export "trunc_s") (param f64) (result i32) (i32.trunc_f64_s (local.get 0)))
  (func (export "trunc_u64") (param f32) (result i64) (i64.trunc_f32_u (local.get 0)))
  (func (export "convert_u") (param i32) (result f64) (f64.convert_i32_u (local.get 0)))
  (func (export "extend_s") (param i32) (result i64) (i64.extend_i32_s (local.get 0)))
  (func (export "wrap") (param i64) (result i32) (i32.wrap_i64 (local.get 0)))
  (func (export "reinterpret") (param f32) (result i32) (i32.reinterpret_f32 (local.get 0)))
  (func (export "i64_lt_u") (param i64 i64) (result i32) (i64.lt_u (local.get 0) (local.get 1)))

  ;; Traps.
  (func (export "div_s") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
  (func (export "rem_s") (param i32 i32) (result i32) (i32.rem_s (local.get 0) (local.get 1)))
  (func (export "div_u64") (param i64 i64) (result i64) (i64.div_u (local.get 0) (local.get 1)))
  (func (export "unreachable") (unreachable))
  (func $recurse (export "recurse") (param i32) (result i32)
    (i32.add (call $recurse (local.get 0)) (i32.const 1)))
)
