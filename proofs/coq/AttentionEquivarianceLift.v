(** * The all-d lift of attention-equivariance-v1's composed harness (KANI-AEQ-001),
    machine-checked *)
(** As in SoftmaxKernelLift.v (the softmax kernel's model, LEM-ASCL-001): for every row length
    d >= 2, if the step lemmas the solver proved hold (Section hypotheses named after their IDs,
    harnesses/attention_equivariance.cpp), swapping x_0 and x_1 of a finite row swaps outputs 0
    and 1 of the kernel's softmax and leaves the rest, bit for bit: equality of Flocq binary
    floats ([BinarySingleNaN]: one NaN, as in the solver's FloatingPoint theory, so "same bits"
    is Coq's equality). The libm's exp is abstract, constrained only by LEM-AEQ-005. *)
From Coq Require Import ZArith SpecFloat List.
From Flocq Require Import Core.Core IEEE754.BinarySingleNaN.
From Attncheck Require Import SoftmaxKernelLift.
Import ListNotations.

Section Equivariance.
Variable prec emax : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Context (prec_lt_emax_ : Prec_lt_emax prec emax).
Notation float := (binary_float prec emax).
Notation zero := (@zero prec emax).
Variable exp : float -> float.

(** The step lemmas, as [h.assume] premises and [h.check] conclusions. *)
(** LEM-AEQ-001: for finite a, b, max_step(a, b) == max_step(b, a).
    {transcribes harnesses/attention_equivariance.cpp lem_aeq_001 #997b10b8} *)
Definition LEM_AEQ_001 : Prop := forall a b : float,
  is_finite a = true -> is_finite b = true -> Beqb (max_step a b) (max_step b a) = true.
(** LEM-AEQ-002: for finite m == m' and x, max_step(m, x) == max_step(m', x).
    {transcribes harnesses/attention_equivariance.cpp lem_aeq_002 #a62b5339} *)
Definition LEM_AEQ_002 : Prop := forall m m2 x : float,
  is_finite m = true -> is_finite m2 = true -> is_finite x = true -> Beqb m m2 = true ->
  Beqb (max_step m x) (max_step m2 x) = true.
(** LEM-AEQ-003: for finite x and m == m', fl(x - m) == fl(x - m').
    {transcribes harnesses/attention_equivariance.cpp lem_aeq_003 #e4150fa2} *)
Definition LEM_AEQ_003 : Prop := forall x m m2 : float,
  is_finite x = true -> is_finite m = true -> is_finite m2 = true -> Beqb m m2 = true ->
  Beqb (Bminus mode_NE x m) (Bminus mode_NE x m2) = true.
(** LEM-AEQ-005: a == b gives exp(a) and exp(b) with the same bits.
    {transcribes harnesses/attention_equivariance.cpp lem_aeq_005 #4fedd3e3} *)
Definition LEM_AEQ_005 : Prop := forall a b : float, Beqb a b = true -> exp a = exp b.
(** LEM-AEQ-004: fl(fl(0 + a) + b) and fl(fl(0 + b) + a) have the same bits, for all a, b.
    {transcribes harnesses/attention_equivariance.cpp lem_aeq_004 #19ca8a10} *)
Definition LEM_AEQ_004 : Prop := forall a b : float,
  Bplus mode_NE (Bplus mode_NE zero a) b = Bplus mode_NE (Bplus mode_NE zero b) a.

Hypothesis lem_ascl_001 : LEM_ASCL_001 prec emax.
Hypothesis lem_aeq_001 : LEM_AEQ_001.
Hypothesis lem_aeq_002 : LEM_AEQ_002.
Hypothesis lem_aeq_003 : LEM_AEQ_003.
Hypothesis lem_aeq_005 : LEM_AEQ_005.
Hypothesis lem_aeq_004 : LEM_AEQ_004.

(** The later max steps keep two equal running maxima equal (and finite). *)
Lemma row_max_tail_eq (xs : list float) (m m2 : float) :
  Forall (fun xi => is_finite xi = true) xs -> is_finite m = true -> is_finite m2 = true ->
  Beqb m m2 = true ->
  is_finite (row_max m xs) = true /\ is_finite (row_max m2 xs) = true /\
  Beqb (row_max m xs) (row_max m2 xs) = true.
Proof.
  unfold row_max. revert m m2. induction xs as [|x xs IH]; intros m m2 Fxs Fm Fm2 Heq; simpl.
  - auto.
  - inversion Fxs as [|? ? Fx Fxs']; subst.
    destruct (lem_ascl_001 m x Fm Fx) as [F1 _]. destruct (lem_ascl_001 m2 x Fm2 Fx) as [F2 _].
    apply IH; try assumption. apply lem_aeq_002; assumption.
Qed.

(** The output permutation the harness checks: [ys[0] = y[1], ys[1] = y[0], ys[i] = y[i]]. *)
Definition swap01 (y : list float) : list float :=
  match y with y0 :: y1 :: ys => y1 :: y0 :: ys | _ => y end.

(** KANI-AEQ-001 for every d >= 2 (the harness: [softmax(x, y, d)]; [swap(x[0], x[1])];
    [softmax(x, ys, d)]; checks [same_bits] of every output).
    {transcribes harnesses/attention_equivariance.cpp bmc_aeq_001 #52e6568a} *)
Theorem kani_aeq_001_all_d (x0 x1 : float) (rest : list float) :
  Forall (fun xi => is_finite xi = true) (x0 :: x1 :: rest) ->
  softmax exp (x1 :: x0 :: rest) = swap01 (softmax exp (x0 :: x1 :: rest)).
Proof.
  intros Fx. inversion Fx as [|? ? F0 Fx']; subst. inversion Fx' as [|? ? F1 Frest]; subst.
  (* m' = row_max(x') == m = row_max(x): LEM-AEQ-001 for the first step, then LEM-AEQ-002. *)
  destruct (lem_ascl_001 x1 x0 F1 F0) as [Fa _]. destruct (lem_ascl_001 x0 x1 F0 F1) as [Fb _].
  destruct (row_max_tail_eq rest (max_step x1 x0) (max_step x0 x1) Frest Fa Fb
              (lem_aeq_001 x1 x0 F1 F0)) as [Fm' [Fm Heq]].
  change (row_max (max_step x1 x0) rest) with (row_max x1 (x0 :: rest)) in Fm', Heq.
  change (row_max (max_step x0 x1) rest) with (row_max x0 (x1 :: rest)) in Fm, Heq.
  set (m' := row_max x1 (x0 :: rest)) in *. set (m := row_max x0 (x1 :: rest)) in *.
  (* Every exp step with m' has the bits of the step with m: LEM-AEQ-003, then LEM-AEQ-005. *)
  assert (He : forall xi, is_finite xi = true -> shifted_exp_step exp xi m' = shifted_exp_step exp xi m).
  { intros xi Fi. unfold shifted_exp_step. apply lem_aeq_005, lem_aeq_003; assumption. }
  assert (Hmap : forall l, Forall (fun xi => is_finite xi = true) l ->
            map (fun xi => shifted_exp_step exp xi m') l = map (fun xi => shifted_exp_step exp xi m) l).
  { intros l Fl. apply map_ext_in. intros xi Hi. apply He. exact (proj1 (Forall_forall _ _) Fl xi Hi). }
  unfold softmax, normalise_row, softmax_exps. fold m' m.
  rewrite (Hmap (x1 :: x0 :: rest) ltac:(repeat constructor; assumption)).
  cbn [map swap01].
  (* The sums: the first two steps from +0 commute bit for bit (LEM-AEQ-004), the rest are equal. *)
  unfold row_sum. cbn [fold_left].
  assert (Hs : sum_step (sum_step zero (shifted_exp_step exp x1 m)) (shifted_exp_step exp x0 m) =
               sum_step (sum_step zero (shifted_exp_step exp x0 m)) (shifted_exp_step exp x1 m))
    by apply lem_aeq_004.
  rewrite Hs. reflexivity.
Qed.
End Equivariance.
