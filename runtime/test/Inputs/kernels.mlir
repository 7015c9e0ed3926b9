// Empty kernels k0 ... k255, compiled for the host target at build time,
// that the runtime tests load and launch, one that computes, and two whose
// workgroups wait for the last one (one marked symm.co_resident).
gpu.module @kernels {
  // buf[t] = buf[t] * a + b for each thread t: launches in another order,
  // or with other parameters, give another result.
  gpu.func @scale_add(%buf: memref<?xi32>, %a: i32, %b: i32) kernel {
    %t = gpu.thread_id x
    %v = memref.load %buf[%t] : memref<?xi32>
    %m = arith.muli %v, %a : i32
    %r = arith.addi %m, %b : i32
    memref.store %r, %buf[%t] : memref<?xi32>
    gpu.return
  }
  // Every workgroup but the last waits for the last to raise flag[0].
  gpu.func @wait_for_last(%flag: memref<1xi32, #symm.heap>) kernel
      attributes {symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %b = gpu.block_id x
    %g = gpu.grid_dim x
    %lastIndex = arith.subi %g, %c1 : index
    %last = arith.cmpi eq, %b, %lastIndex : index
    scf.if %last {
      symm.signal set %one, %flag[%c0] scope(device) : i32 -> memref<1xi32, #symm.heap>
    } else {
      %seen = symm.wait %flag[%c0] ge %one scope(device) : memref<1xi32, #symm.heap> -> i32
    }
    gpu.return
  }
  // The same kernel, unmarked: the runtime launches any grid.
  gpu.func @wait_for_last_unmarked(%flag: memref<1xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %b = gpu.block_id x
    %g = gpu.grid_dim x
    %lastIndex = arith.subi %g, %c1 : index
    %last = arith.cmpi eq, %b, %lastIndex : index
    scf.if %last {
      symm.signal set %one, %flag[%c0] scope(device) : i32 -> memref<1xi32, #symm.heap>
    } else {
      %seen = symm.wait %flag[%c0] ge %one scope(device) : memref<1xi32, #symm.heap> -> i32
    }
    gpu.return
  }
  gpu.func @k0() kernel {
    gpu.return
  }
  gpu.func @k1() kernel {
    gpu.return
  }
  gpu.func @k2() kernel {
    gpu.return
  }
  gpu.func @k3() kernel {
    gpu.return
  }
  gpu.func @k4() kernel {
    gpu.return
  }
  gpu.func @k5() kernel {
    gpu.return
  }
  gpu.func @k6() kernel {
    gpu.return
  }
  gpu.func @k7() kernel {
    gpu.return
  }
  gpu.func @k8() kernel {
    gpu.return
  }
  gpu.func @k9() kernel {
    gpu.return
  }
  gpu.func @k10() kernel {
    gpu.return
  }
  gpu.func @k11() kernel {
    gpu.return
  }
  gpu.func @k12() kernel {
    gpu.return
  }
  gpu.func @k13() kernel {
    gpu.return
  }
  gpu.func @k14() kernel {
    gpu.return
  }
  gpu.func @k15() kernel {
    gpu.return
  }
  gpu.func @k16() kernel {
    gpu.return
  }
  gpu.func @k17() kernel {
    gpu.return
  }
  gpu.func @k18() kernel {
    gpu.return
  }
  gpu.func @k19() kernel {
    gpu.return
  }
  gpu.func @k20() kernel {
    gpu.return
  }
  gpu.func @k21() kernel {
    gpu.return
  }
  gpu.func @k22() kernel {
    gpu.return
  }
  gpu.func @k23() kernel {
    gpu.return
  }
  gpu.func @k24() kernel {
    gpu.return
  }
  gpu.func @k25() kernel {
    gpu.return
  }
  gpu.func @k26() kernel {
    gpu.return
  }
  gpu.func @k27() kernel {
    gpu.return
  }
  gpu.func @k28() kernel {
    gpu.return
  }
  gpu.func @k29() kernel {
    gpu.return
  }
  gpu.func @k30() kernel {
    gpu.return
  }
  gpu.func @k31() kernel {
    gpu.return
  }
  gpu.func @k32() kernel {
    gpu.return
  }
  gpu.func @k33() kernel {
    gpu.return
  }
  gpu.func @k34() kernel {
    gpu.return
  }
  gpu.func @k35() kernel {
    gpu.return
  }
  gpu.func @k36() kernel {
    gpu.return
  }
  gpu.func @k37() kernel {
    gpu.return
  }
  gpu.func @k38() kernel {
    gpu.return
  }
  gpu.func @k39() kernel {
    gpu.return
  }
  gpu.func @k40() kernel {
    gpu.return
  }
  gpu.func @k41() kernel {
    gpu.return
  }
  gpu.func @k42() kernel {
    gpu.return
  }
  gpu.func @k43() kernel {
    gpu.return
  }
  gpu.func @k44() kernel {
    gpu.return
  }
  gpu.func @k45() kernel {
    gpu.return
  }
  gpu.func @k46() kernel {
    gpu.return
  }
  gpu.func @k47() kernel {
    gpu.return
  }
  gpu.func @k48() kernel {
    gpu.return
  }
  gpu.func @k49() kernel {
    gpu.return
  }
  gpu.func @k50() kernel {
    gpu.return
  }
  gpu.func @k51() kernel {
    gpu.return
  }
  gpu.func @k52() kernel {
    gpu.return
  }
  gpu.func @k53() kernel {
    gpu.return
  }
  gpu.func @k54() kernel {
    gpu.return
  }
  gpu.func @k55() kernel {
    gpu.return
  }
  gpu.func @k56() kernel {
    gpu.return
  }
  gpu.func @k57() kernel {
    gpu.return
  }
  gpu.func @k58() kernel {
    gpu.return
  }
  gpu.func @k59() kernel {
    gpu.return
  }
  gpu.func @k60() kernel {
    gpu.return
  }
  gpu.func @k61() kernel {
    gpu.return
  }
  gpu.func @k62() kernel {
    gpu.return
  }
  gpu.func @k63() kernel {
    gpu.return
  }
  gpu.func @k64() kernel {
    gpu.return
  }
  gpu.func @k65() kernel {
    gpu.return
  }
  gpu.func @k66() kernel {
    gpu.return
  }
  gpu.func @k67() kernel {
    gpu.return
  }
  gpu.func @k68() kernel {
    gpu.return
  }
  gpu.func @k69() kernel {
    gpu.return
  }
  gpu.func @k70() kernel {
    gpu.return
  }
  gpu.func @k71() kernel {
    gpu.return
  }
  gpu.func @k72() kernel {
    gpu.return
  }
  gpu.func @k73() kernel {
    gpu.return
  }
  gpu.func @k74() kernel {
    gpu.return
  }
  gpu.func @k75() kernel {
    gpu.return
  }
  gpu.func @k76() kernel {
    gpu.return
  }
  gpu.func @k77() kernel {
    gpu.return
  }
  gpu.func @k78() kernel {
    gpu.return
  }
  gpu.func @k79() kernel {
    gpu.return
  }
  gpu.func @k80() kernel {
    gpu.return
  }
  gpu.func @k81() kernel {
    gpu.return
  }
  gpu.func @k82() kernel {
    gpu.return
  }
  gpu.func @k83() kernel {
    gpu.return
  }
  gpu.func @k84() kernel {
    gpu.return
  }
  gpu.func @k85() kernel {
    gpu.return
  }
  gpu.func @k86() kernel {
    gpu.return
  }
  gpu.func @k87() kernel {
    gpu.return
  }
  gpu.func @k88() kernel {
    gpu.return
  }
  gpu.func @k89() kernel {
    gpu.return
  }
  gpu.func @k90() kernel {
    gpu.return
  }
  gpu.func @k91() kernel {
    gpu.return
  }
  gpu.func @k92() kernel {
    gpu.return
  }
  gpu.func @k93() kernel {
    gpu.return
  }
  gpu.func @k94() kernel {
    gpu.return
  }
  gpu.func @k95() kernel {
    gpu.return
  }
  gpu.func @k96() kernel {
    gpu.return
  }
  gpu.func @k97() kernel {
    gpu.return
  }
  gpu.func @k98() kernel {
    gpu.return
  }
  gpu.func @k99() kernel {
    gpu.return
  }
  gpu.func @k100() kernel {
    gpu.return
  }
  gpu.func @k101() kernel {
    gpu.return
  }
  gpu.func @k102() kernel {
    gpu.return
  }
  gpu.func @k103() kernel {
    gpu.return
  }
  gpu.func @k104() kernel {
    gpu.return
  }
  gpu.func @k105() kernel {
    gpu.return
  }
  gpu.func @k106() kernel {
    gpu.return
  }
  gpu.func @k107() kernel {
    gpu.return
  }
  gpu.func @k108() kernel {
    gpu.return
  }
  gpu.func @k109() kernel {
    gpu.return
  }
  gpu.func @k110() kernel {
    gpu.return
  }
  gpu.func @k111() kernel {
    gpu.return
  }
  gpu.func @k112() kernel {
    gpu.return
  }
  gpu.func @k113() kernel {
    gpu.return
  }
  gpu.func @k114() kernel {
    gpu.return
  }
  gpu.func @k115() kernel {
    gpu.return
  }
  gpu.func @k116() kernel {
    gpu.return
  }
  gpu.func @k117() kernel {
    gpu.return
  }
  gpu.func @k118() kernel {
    gpu.return
  }
  gpu.func @k119() kernel {
    gpu.return
  }
  gpu.func @k120() kernel {
    gpu.return
  }
  gpu.func @k121() kernel {
    gpu.return
  }
  gpu.func @k122() kernel {
    gpu.return
  }
  gpu.func @k123() kernel {
    gpu.return
  }
  gpu.func @k124() kernel {
    gpu.return
  }
  gpu.func @k125() kernel {
    gpu.return
  }
  gpu.func @k126() kernel {
    gpu.return
  }
  gpu.func @k127() kernel {
    gpu.return
  }
  gpu.func @k128() kernel {
    gpu.return
  }
  gpu.func @k129() kernel {
    gpu.return
  }
  gpu.func @k130() kernel {
    gpu.return
  }
  gpu.func @k131() kernel {
    gpu.return
  }
  gpu.func @k132() kernel {
    gpu.return
  }
  gpu.func @k133() kernel {
    gpu.return
  }
  gpu.func @k134() kernel {
    gpu.return
  }
  gpu.func @k135() kernel {
    gpu.return
  }
  gpu.func @k136() kernel {
    gpu.return
  }
  gpu.func @k137() kernel {
    gpu.return
  }
  gpu.func @k138() kernel {
    gpu.return
  }
  gpu.func @k139() kernel {
    gpu.return
  }
  gpu.func @k140() kernel {
    gpu.return
  }
  gpu.func @k141() kernel {
    gpu.return
  }
  gpu.func @k142() kernel {
    gpu.return
  }
  gpu.func @k143() kernel {
    gpu.return
  }
  gpu.func @k144() kernel {
    gpu.return
  }
  gpu.func @k145() kernel {
    gpu.return
  }
  gpu.func @k146() kernel {
    gpu.return
  }
  gpu.func @k147() kernel {
    gpu.return
  }
  gpu.func @k148() kernel {
    gpu.return
  }
  gpu.func @k149() kernel {
    gpu.return
  }
  gpu.func @k150() kernel {
    gpu.return
  }
  gpu.func @k151() kernel {
    gpu.return
  }
  gpu.func @k152() kernel {
    gpu.return
  }
  gpu.func @k153() kernel {
    gpu.return
  }
  gpu.func @k154() kernel {
    gpu.return
  }
  gpu.func @k155() kernel {
    gpu.return
  }
  gpu.func @k156() kernel {
    gpu.return
  }
  gpu.func @k157() kernel {
    gpu.return
  }
  gpu.func @k158() kernel {
    gpu.return
  }
  gpu.func @k159() kernel {
    gpu.return
  }
  gpu.func @k160() kernel {
    gpu.return
  }
  gpu.func @k161() kernel {
    gpu.return
  }
  gpu.func @k162() kernel {
    gpu.return
  }
  gpu.func @k163() kernel {
    gpu.return
  }
  gpu.func @k164() kernel {
    gpu.return
  }
  gpu.func @k165() kernel {
    gpu.return
  }
  gpu.func @k166() kernel {
    gpu.return
  }
  gpu.func @k167() kernel {
    gpu.return
  }
  gpu.func @k168() kernel {
    gpu.return
  }
  gpu.func @k169() kernel {
    gpu.return
  }
  gpu.func @k170() kernel {
    gpu.return
  }
  gpu.func @k171() kernel {
    gpu.return
  }
  gpu.func @k172() kernel {
    gpu.return
  }
  gpu.func @k173() kernel {
    gpu.return
  }
  gpu.func @k174() kernel {
    gpu.return
  }
  gpu.func @k175() kernel {
    gpu.return
  }
  gpu.func @k176() kernel {
    gpu.return
  }
  gpu.func @k177() kernel {
    gpu.return
  }
  gpu.func @k178() kernel {
    gpu.return
  }
  gpu.func @k179() kernel {
    gpu.return
  }
  gpu.func @k180() kernel {
    gpu.return
  }
  gpu.func @k181() kernel {
    gpu.return
  }
  gpu.func @k182() kernel {
    gpu.return
  }
  gpu.func @k183() kernel {
    gpu.return
  }
  gpu.func @k184() kernel {
    gpu.return
  }
  gpu.func @k185() kernel {
    gpu.return
  }
  gpu.func @k186() kernel {
    gpu.return
  }
  gpu.func @k187() kernel {
    gpu.return
  }
  gpu.func @k188() kernel {
    gpu.return
  }
  gpu.func @k189() kernel {
    gpu.return
  }
  gpu.func @k190() kernel {
    gpu.return
  }
  gpu.func @k191() kernel {
    gpu.return
  }
  gpu.func @k192() kernel {
    gpu.return
  }
  gpu.func @k193() kernel {
    gpu.return
  }
  gpu.func @k194() kernel {
    gpu.return
  }
  gpu.func @k195() kernel {
    gpu.return
  }
  gpu.func @k196() kernel {
    gpu.return
  }
  gpu.func @k197() kernel {
    gpu.return
  }
  gpu.func @k198() kernel {
    gpu.return
  }
  gpu.func @k199() kernel {
    gpu.return
  }
  gpu.func @k200() kernel {
    gpu.return
  }
  gpu.func @k201() kernel {
    gpu.return
  }
  gpu.func @k202() kernel {
    gpu.return
  }
  gpu.func @k203() kernel {
    gpu.return
  }
  gpu.func @k204() kernel {
    gpu.return
  }
  gpu.func @k205() kernel {
    gpu.return
  }
  gpu.func @k206() kernel {
    gpu.return
  }
  gpu.func @k207() kernel {
    gpu.return
  }
  gpu.func @k208() kernel {
    gpu.return
  }
  gpu.func @k209() kernel {
    gpu.return
  }
  gpu.func @k210() kernel {
    gpu.return
  }
  gpu.func @k211() kernel {
    gpu.return
  }
  gpu.func @k212() kernel {
    gpu.return
  }
  gpu.func @k213() kernel {
    gpu.return
  }
  gpu.func @k214() kernel {
    gpu.return
  }
  gpu.func @k215() kernel {
    gpu.return
  }
  gpu.func @k216() kernel {
    gpu.return
  }
  gpu.func @k217() kernel {
    gpu.return
  }
  gpu.func @k218() kernel {
    gpu.return
  }
  gpu.func @k219() kernel {
    gpu.return
  }
  gpu.func @k220() kernel {
    gpu.return
  }
  gpu.func @k221() kernel {
    gpu.return
  }
  gpu.func @k222() kernel {
    gpu.return
  }
  gpu.func @k223() kernel {
    gpu.return
  }
  gpu.func @k224() kernel {
    gpu.return
  }
  gpu.func @k225() kernel {
    gpu.return
  }
  gpu.func @k226() kernel {
    gpu.return
  }
  gpu.func @k227() kernel {
    gpu.return
  }
  gpu.func @k228() kernel {
    gpu.return
  }
  gpu.func @k229() kernel {
    gpu.return
  }
  gpu.func @k230() kernel {
    gpu.return
  }
  gpu.func @k231() kernel {
    gpu.return
  }
  gpu.func @k232() kernel {
    gpu.return
  }
  gpu.func @k233() kernel {
    gpu.return
  }
  gpu.func @k234() kernel {
    gpu.return
  }
  gpu.func @k235() kernel {
    gpu.return
  }
  gpu.func @k236() kernel {
    gpu.return
  }
  gpu.func @k237() kernel {
    gpu.return
  }
  gpu.func @k238() kernel {
    gpu.return
  }
  gpu.func @k239() kernel {
    gpu.return
  }
  gpu.func @k240() kernel {
    gpu.return
  }
  gpu.func @k241() kernel {
    gpu.return
  }
  gpu.func @k242() kernel {
    gpu.return
  }
  gpu.func @k243() kernel {
    gpu.return
  }
  gpu.func @k244() kernel {
    gpu.return
  }
  gpu.func @k245() kernel {
    gpu.return
  }
  gpu.func @k246() kernel {
    gpu.return
  }
  gpu.func @k247() kernel {
    gpu.return
  }
  gpu.func @k248() kernel {
    gpu.return
  }
  gpu.func @k249() kernel {
    gpu.return
  }
  gpu.func @k250() kernel {
    gpu.return
  }
  gpu.func @k251() kernel {
    gpu.return
  }
  gpu.func @k252() kernel {
    gpu.return
  }
  gpu.func @k253() kernel {
    gpu.return
  }
  gpu.func @k254() kernel {
    gpu.return
  }
  gpu.func @k255() kernel {
    gpu.return
  }
}
