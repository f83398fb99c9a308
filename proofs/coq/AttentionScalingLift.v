(** * The all-d lifts of attention-scaling-v1's composed harnesses (KANI-ASCL-002, BMC-ASCL-003),
    machine-checked *)
(** As in SoftmaxKernelLift.v (which models the softmax kernel and states the LEM-SM-* and
    LEM-ASCL-001 hypotheses): for every row length d >= 1, if the step lemmas the solver proved
    hold (Section hypotheses named after their IDs, harnesses/attention_scaling.cpp), the
    property holds for the kernel's loops, in Flocq's IEEE-754 binary arithmetic of any format,
    round to nearest even. The libm's exp and log are abstract functions constrained only by the
    lemmas' hypotheses. *)
From Coq Require Import Reals SpecFloat List.
From Flocq Require Import Core.Core IEEE754.BinarySingleNaN.
From Attncheck Require Import SoftmaxKernelLift.
Import ListNotations.

Section Scaling.
Variable prec emax : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Context (prec_lt_emax_ : Prec_lt_emax prec emax).
Notation float := (binary_float prec emax).
Notation zero := (@zero prec emax).
Notation one := (@one prec emax prec_gt_0_ prec_lt_emax_).

(** ** KANI-ASCL-002 for every d: max subtraction (the harness: [m = row_max(x, d)];
    [t = xi - m]; checks [t <= 0], [!(xi == m) || t == 0], and that some [t == 0]). *)

(** LEM-ASCL-002: for finite a <= m, fl(a - m) <= 0, and a == m gives fl(a - m) == 0.
    {transcribes harnesses/attention_scaling.cpp lem_ascl_002 #ad01c7f1} *)
Definition LEM_ASCL_002 : Prop := forall a m : float,
  is_finite a = true -> is_finite m = true -> Bleb a m = true ->
  Bleb (Bminus mode_NE a m) zero = true /\ (Beqb a m = true -> Beqb (Bminus mode_NE a m) zero = true).

(** The harness's loop, for every d.
    {transcribes harnesses/attention_scaling.cpp bmc_ascl_002 #c9e43273} *)
Section Ascl002.
Hypothesis lem_ascl_001 : LEM_ASCL_001 prec emax.
Hypothesis lem_ascl_002 : LEM_ASCL_002.

Theorem kani_ascl_002_all_d (x0 : float) (xs : list float) :
  Forall (fun xi => is_finite xi = true) (x0 :: xs) ->
  let m := row_max x0 xs in
  Forall (fun xi => Bleb (Bminus mode_NE xi m) zero = true /\
                    (Beqb xi m = true -> Beqb (Bminus mode_NE xi m) zero = true)) (x0 :: xs) /\
  Exists (fun xi => Beqb (Bminus mode_NE xi m) zero = true) (x0 :: xs).
Proof.
  intros Fx. inversion Fx as [|? ? F0 Fxs]; subst.
  destruct (row_max_spec prec emax lem_ascl_001 x0 xs F0 Fxs) as [Fm [Hle Hex]]. split.
  - apply Forall_forall. intros xi Hi.
    apply lem_ascl_002; [exact (proj1 (Forall_forall _ _) Fx xi Hi) | exact Fm |].
    exact (proj1 (Forall_forall _ _) Hle xi Hi).
  - apply Exists_exists in Hex. destruct Hex as [xk [Hk Heq]]. apply Exists_exists.
    exists xk. split; [exact Hk|].
    apply (lem_ascl_002 xk (row_max x0 xs) (proj1 (Forall_forall _ _) Fx xk Hk) Fm
             (proj1 (Forall_forall _ _) Hle xk Hk)).
    apply Beqb_sym, Heq.
Qed.
End Ascl002.

(** ** BMC-ASCL-003 for every d: the entropy of the softmax of a finite row is >= 0 (not NaN). *)

(** The libm's log, at the scalar of the format: abstract. *)
Variable log : float -> float.

(** [entropy_term] (src/attncheck/kernels/entropy.hpp): [positive = p > 0];
    [safe = select(positive, p, 1)]; [return select(positive, -(safe * log(safe)), 0);]
    {transcribes src/attncheck/kernels/entropy.hpp entropy_term #9fec6d30} *)
Definition entropy_term (p : float) : float :=
  let positive := Bltb zero p in
  let safe := if positive then p else one in
  if positive then Bopp (Bmult mode_NE safe (log safe)) else zero.

(** [entropy]: [T h = 0; for (i = 0; i < n; ++i) h = h + entropy_term(p[i]);]
    {transcribes src/attncheck/kernels/entropy.hpp entropy #da28ddd5} *)
Definition entropy (p : list float) : float :=
  fold_left (fun h pi => Bplus mode_NE h (entropy_term pi)) p zero.

(** LEM-ASCL-003: for p in [0, 1], entropy_term(p) >= 0 and finite.
    {transcribes harnesses/attention_scaling.cpp lem_ascl_003 #efce8b99} *)
Definition LEM_ASCL_003 : Prop := forall p : float,
  Bleb zero p = true -> Bleb p one = true ->
  Bleb zero (entropy_term p) = true /\ is_finite (entropy_term p) = true.

(** LEM-ASCL-004: for h >= 0 and finite t >= 0, fl(h + t) >= h.
    {transcribes harnesses/attention_scaling.cpp lem_ascl_004 #34fecece} *)
Definition LEM_ASCL_004 : Prop := forall h t : float,
  Bleb zero h = true -> Bleb zero t = true -> is_finite t = true ->
  Bleb h (Bplus mode_NE h t) = true.

Section Ascl003.
Variable exp : float -> float.
Hypothesis lem_ascl_001 : LEM_ASCL_001 prec emax.
Hypothesis lem_sm_001 : LEM_SM_001 prec emax exp.
Hypothesis lem_sm_002 : LEM_SM_002 prec emax.
Hypothesis lem_sm_003 : LEM_SM_003 prec emax.
Hypothesis lem_sm_005 : LEM_SM_005 prec emax.
Hypothesis lem_sm_004 : LEM_SM_004 prec emax.
Hypothesis lem_ascl_003 : LEM_ASCL_003.
Hypothesis lem_ascl_004 : LEM_ASCL_004.

(** The entropy loop: from any h >= 0, adding the terms of entries in [0, 1] keeps h >= 0. *)
Lemma entropy_loop_nonneg (ps : list float) (h : float) :
  Forall (fun pi => Bleb zero pi = true /\ Bleb pi one = true) ps -> Bleb zero h = true ->
  Bleb zero (fold_left (fun h pi => Bplus mode_NE h (entropy_term pi)) ps h) = true.
Proof.
  revert h. induction ps as [|pi ps IH]; intros h Hp Hh; simpl; [exact Hh|].
  inversion Hp as [|? ? [Hp0 Hp1] Hps]; subst.
  destruct (lem_ascl_003 pi Hp0 Hp1) as [Ht Ft].
  apply IH; [exact Hps|]. apply Bleb_trans with (b := h); [exact Hh|].
  apply lem_ascl_004; assumption.
Qed.

(** The harness: [softmax(x, p, d); e = entropy(p, d);] checks [e >= 0].
    {transcribes harnesses/attention_scaling.cpp bmc_ascl_003 #1d277ae6} *)
Theorem bmc_ascl_003_all_d (x : list float) :
  x <> [] -> Forall (fun xi => is_finite xi = true) x ->
  Bleb zero (entropy (softmax exp x)) = true.
Proof.
  intros Hne Fx. apply entropy_loop_nonneg; [|exact (Bleb_refl_finite prec emax zero eq_refl)].
  exact (kani_sm_002_all_d prec emax prec_gt_0_ prec_lt_emax_ exp lem_ascl_001 lem_sm_001
           lem_sm_002 lem_sm_003 lem_sm_005 lem_sm_004 x Hne Fx).
Qed.
End Ascl003.
End Scaling.
