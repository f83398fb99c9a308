(** * The all-d lifts of softmax-kernel-v1's composed harness (KANI-SM-002), machine-checked *)
(** `attncheck bmc` proves step lemmas (LEM-* in contracts/*.yaml, harnesses/*.cpp) for every
    value of a format with an SMT solver (Z3/cvc5, the theory of floating point) and claims the
    whole-row property "for all d by composition". This file states that composition as a Coq
    theorem: for every row length d >= 1, if the step lemmas hold (the propositions the solver
    proved, as Section hypotheses named after the lemma IDs), the property holds for the kernel's
    loops. The arithmetic is Flocq's IEEE-754 binary arithmetic ([BinarySingleNaN]: one NaN, as in
    SMT-LIB's FloatingPoint theory; any [prec], [emax]: f16, bf16, f32, ...), round to nearest even;
    the C++ comparisons [a <= b], [a < b], [a == b] are [Bleb], [Bltb], [Beqb] (false on NaN, and
    [+0 == -0]), and the libm's [exp] is an abstract function constrained only by LEM-SM-001.
    Nothing here is assumed outside a Section: after [End], each hypothesis is a premise of the
    theorem (Print Assumptions in All.v shows no axiom beyond Coq's reals). *)
From Coq Require Import Reals Lia Lra SpecFloat List.
From Flocq Require Import Core.Core IEEE754.BinarySingleNaN.
Import ListNotations.
Open Scope R_scope.

Section Kernel.
Variable prec emax : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Context (prec_lt_emax_ : Prec_lt_emax prec emax).
Notation float := (binary_float prec emax).

(** The literals of the kernels: [lit<T>(0)] is +0, [lit<T>(1)] is 1. *)
Definition zero : float := B754_zero false.
Definition one : float := Bone.

(** ** IEEE comparisons: what the composition needs of them (all proved, from Flocq) *)

Ltac finite_or_cases a b c :=
  destruct (is_finite a) eqn:Fa; destruct (is_finite b) eqn:Fb; destruct (is_finite c) eqn:Fc;
  [ | destruct a as [[]|[]| |[] ? ? ?]; destruct b as [[]|[]| |[] ? ? ?];
      destruct c as [[]|[]| |[] ? ? ?]; simpl in *; try easy .. ].

Lemma Bleb_trans (a b c : float) : Bleb a b = true -> Bleb b c = true -> Bleb a c = true.
Proof.
  finite_or_cases a b c. rewrite !Bleb_correct by assumption.
  do 2 case Rle_bool_spec; intros; try easy. apply Rle_bool_true. lra.
Qed.

Lemma Beqb_trans (a b c : float) : Beqb a b = true -> Beqb b c = true -> Beqb a c = true.
Proof.
  finite_or_cases a b c. rewrite !Beqb_correct by assumption.
  do 2 case Req_bool_spec; intros; try easy. apply Req_bool_true. lra.
Qed.

Ltac finite_or_cases2 a b :=
  destruct (is_finite a) eqn:Fa; destruct (is_finite b) eqn:Fb;
  [ | destruct a as [[]|[]| |[] ? ? ?]; destruct b as [[]|[]| |[] ? ? ?]; simpl in *; try easy .. ].

Lemma Beqb_sym (a b : float) : Beqb a b = true -> Beqb b a = true.
Proof.
  finite_or_cases2 a b. rewrite !Beqb_correct by assumption.
  case Req_bool_spec; intros; try easy. apply Req_bool_true. lra.
Qed.

Lemma Beqb_Bleb (a b : float) : Beqb a b = true -> Bleb a b = true.
Proof.
  finite_or_cases2 a b. rewrite Beqb_correct, Bleb_correct by assumption.
  case Req_bool_spec; intros; try easy. apply Rle_bool_true. lra.
Qed.

(** Whatever is >= something is not NaN, so it is <= itself. *)
Lemma Bleb_refl_right (a b : float) : Bleb a b = true -> Bleb b b = true.
Proof.
  intros H. destruct (is_finite b) eqn:Fb.
  - rewrite Bleb_correct by exact Fb. apply Rle_bool_true. lra.
  - destruct a as [[]|[]| |[] ? ? ?]; destruct b as [[]|[]| |[] ? ? ?]; simpl in *; easy.
Qed.

(** A number below a finite one and above 1 is finite (no NaN, no infinity). *)
Lemma Bleb_between_finite (a s c : float) :
  Bleb a s = true -> Bleb s c = true -> is_finite a = true -> is_finite c = true -> is_finite s = true.
Proof.
  destruct a as [[]|[]| |[] ? ? ?]; destruct s as [[]|[]| |[] ? ? ?];
  destruct c as [[]|[]| |[] ? ? ?]; simpl; easy.
Qed.

Lemma is_finite_zero : is_finite zero = true.
Proof. reflexivity. Qed.

Lemma is_finite_one : is_finite one = true.
Proof. apply is_finite_Bone. Qed.

Lemma Bleb_zero_one : Bleb zero one = true.
Proof.
  unfold one. rewrite Bleb_correct by (apply is_finite_zero || apply is_finite_Bone).
  rewrite Bone_correct. apply Rle_bool_true. simpl. lra.
Qed.

Lemma Bleb_refl_finite (a : float) : is_finite a = true -> Bleb a a = true.
Proof. intros F. rewrite Bleb_correct by exact F. apply Rle_bool_true. lra. Qed.

(** [top] = 2^prec, the literal [std::ldexp(1.0, precision)] of LEM-SM-003 and LEM-SM-005:
    finite and >= 0 in every format with prec < emax. *)
Definition top : float := Bldexp mode_NE one prec.

Lemma top_finite_nonneg : is_finite top = true /\ Bleb zero top = true.
Proof.
  pose proof (Bldexp_correct prec emax prec_gt_0_ prec_lt_emax_ mode_NE one prec) as H.
  unfold one in H. rewrite Bone_correct, Rmult_1_l in H.
  rewrite round_generic in H by
    (apply valid_rnd_N || (apply generic_format_bpow; unfold fexp, FLT_exp, emin;
     unfold Prec_gt_0 in prec_gt_0_; unfold Prec_lt_emax in prec_lt_emax_; lia)).
  rewrite Rabs_pos_eq in H by apply bpow_ge_0.
  rewrite Rlt_bool_true in H by (apply bpow_lt; unfold Prec_lt_emax in prec_lt_emax_; lia).
  destruct H as [HR [Hf _]]. rewrite is_finite_Bone in Hf. fold one in HR, Hf. fold top in HR, Hf.
  split; [exact Hf|]. rewrite Bleb_correct by (exact is_finite_zero || exact Hf).
  rewrite HR. apply Rle_bool_true. simpl. apply bpow_ge_0.
Qed.

(** ** The kernel: src/attncheck/kernels/softmax.hpp, line by line *)

(** [max_step]: [return select(xi > m, xi, m);]
    {transcribes src/attncheck/kernels/softmax.hpp max_step #cf0326d3} *)
Definition max_step (m xi : float) : float := if Bltb m xi then xi else m.

(** The libm's exp, at the scalar of the format: abstract. *)
Variable exp : float -> float.

(** [shifted_exp_step]: [return exp(T(xi - m));]
    {transcribes src/attncheck/kernels/softmax.hpp shifted_exp_step #ebc3c31c} *)
Definition shifted_exp_step (xi m : float) : float := exp (Bminus mode_NE xi m).

(** [row_max]: [T m = x[0]; for (i = 1; i < n; ++i) m = max_step(m, x[i]);]
    {transcribes src/attncheck/kernels/softmax.hpp row_max #657cd5f9} *)
Definition row_max (x0 : float) (xs : list float) : float := fold_left max_step xs x0.

(** [row_sum]: [T s = lit<T>(0); for (i = 0; i < n; ++i) s = s + e[i];]
    {transcribes src/attncheck/kernels/softmax.hpp row_sum #624314dc} *)
Definition sum_step (s e : float) : float := Bplus mode_NE s e.
Definition row_sum (e : list float) : float := fold_left sum_step e zero.

(** [normalise_row]: [s = row_sum(e, n); for (i = 0; i < n; ++i) e[i] = e[i] / s;]
    {transcribes src/attncheck/kernels/softmax.hpp normalise_row #95a5d558} *)
Definition normalise_row (e : list float) : list float := map (fun ei => Bdiv mode_NE ei (row_sum e)) e.

(** [softmax]: [if (n == 0) return; m = row_max(x, n); y[i] = shifted_exp_step(x[i], m);
    normalise_row(y, n);]  {transcribes src/attncheck/kernels/softmax.hpp softmax #ca3d64df} *)
Definition softmax_exps (x : list float) : list float :=
  match x with
  | [] => []
  | x0 :: xs => map (fun xi => shifted_exp_step xi (row_max x0 xs)) x
  end.
Definition softmax (x : list float) : list float := normalise_row (softmax_exps x).

(** ** The step lemmas, as the solver proved them (harnesses/attention_scaling.cpp,
    harnesses/softmax_kernel.cpp): each [h.assume] a premise, each [h.check] a conclusion. *)

(** LEM-ASCL-001: for finite m, x: r = max_step(m, x) is finite, r >= m, r >= x, r == m || r == x.
    {transcribes harnesses/attention_scaling.cpp lem_ascl_001 #0ec892cc} *)
Definition LEM_ASCL_001 : Prop := forall m x : float,
  is_finite m = true -> is_finite x = true ->
  is_finite (max_step m x) = true /\ Bleb m (max_step m x) = true /\ Bleb x (max_step m x) = true /\
  (Beqb (max_step m x) m = true \/ Beqb (max_step m x) x = true).

(** LEM-SM-001: finite x <= m gives e = shifted_exp_step(x, m) in [0, 1], and x == m gives e == 1.
    {transcribes harnesses/softmax_kernel.cpp lem_sm_001 #451ccf8c} *)
Definition LEM_SM_001 : Prop := forall x m : float,
  is_finite x = true -> is_finite m = true -> Bleb x m = true ->
  Bleb zero (shifted_exp_step x m) = true /\ Bleb (shifted_exp_step x m) one = true /\
  (Beqb x m = true -> Beqb (shifted_exp_step x m) one = true).

(** LEM-SM-002: s >= 0, 0 <= e <= 1 give s <= fl(s + e), e <= fl(s + e), fl(s + e) <= fl(s + 1).
    {transcribes harnesses/softmax_kernel.cpp lem_sm_002 #a0718640} *)
Definition LEM_SM_002 : Prop := forall s e : float,
  Bleb zero s = true -> Bleb zero e = true -> Bleb e one = true ->
  Bleb s (Bplus mode_NE s e) = true /\ Bleb e (Bplus mode_NE s e) = true /\
  Bleb (Bplus mode_NE s e) (Bplus mode_NE s one) = true.

(** LEM-SM-003: 0 <= c <= 2^p gives 0 <= fl(c + 1) <= 2^p.
    {transcribes harnesses/softmax_kernel.cpp lem_sm_003 #6d4c1c4f} *)
Definition LEM_SM_003 : Prop := forall c : float,
  Bleb zero c = true -> Bleb c top = true ->
  Bleb zero (Bplus mode_NE c one) = true /\ Bleb (Bplus mode_NE c one) top = true.

(** LEM-SM-005: 0 <= s <= c <= 2^p gives fl(s + 1) <= fl(c + 1).
    {transcribes harnesses/softmax_kernel.cpp lem_sm_005 #a0cdb7b3} *)
Definition LEM_SM_005 : Prop := forall s c : float,
  Bleb zero s = true -> Bleb s c = true -> Bleb c top = true ->
  Bleb (Bplus mode_NE s one) (Bplus mode_NE c one) = true.

(** LEM-SM-004: 0 <= e <= s, s >= 1 finite give 0 <= fl(e / s) <= 1.
    {transcribes harnesses/softmax_kernel.cpp lem_sm_004 #e50f0ecb} *)
Definition LEM_SM_004 : Prop := forall e s : float,
  Bleb zero e = true -> Bleb e s = true -> Bleb one s = true -> is_finite s = true ->
  Bleb zero (Bdiv mode_NE e s) = true /\ Bleb (Bdiv mode_NE e s) one = true.

(** ** The row maximum, for every d: finite, >= every x_i, == some x_k (LEM-ASCL-001). *)
Section RowMax.
Hypothesis lem_ascl_001 : LEM_ASCL_001.

Lemma row_max_spec (x0 : float) (xs : list float) :
  is_finite x0 = true -> Forall (fun xi => is_finite xi = true) xs ->
  let m := row_max x0 xs in
  is_finite m = true /\ Forall (fun xi => Bleb xi m = true) (x0 :: xs) /\
  Exists (fun xk => Beqb m xk = true) (x0 :: xs).
Proof.
  unfold row_max. revert x0. induction xs as [|x xs IH]; intros x0 F0 Fs; simpl.
  - split; [exact F0|]. split; [constructor; [apply Bleb_refl_finite, F0 | constructor]|].
    constructor. rewrite Beqb_refl. destruct x0; easy.
  - inversion Fs as [|? ? Fx Fxs]; subst.
    destruct (lem_ascl_001 x0 x F0 Fx) as [Fr [Hm [Hx Heq]]].
    destruct (IH (max_step x0 x) Fr Fxs) as [Fm [Hle Hex]].
    inversion Hle as [|? ? Hrm Hxs]; subst.
    split; [exact Fm|]. split.
    + constructor; [apply Bleb_trans with (1 := Hm), Hrm|].
      constructor; [apply Bleb_trans with (1 := Hx), Hrm | exact Hxs].
    + inversion Hex as [? ? Hk|? ? Hk]; subst.
      * destruct Heq as [Heq|Heq].
        -- apply Exists_cons_hd. apply Beqb_trans with (1 := Hk), Heq.
        -- apply Exists_cons_tl, Exists_cons_hd. apply Beqb_trans with (1 := Hk), Heq.
      * apply Exists_cons_tl, Exists_cons_tl, Hk.
Qed.
End RowMax.

(** ** KANI-SM-002 for every d *)
Section Sm002.
Hypothesis lem_ascl_001 : LEM_ASCL_001.
Hypothesis lem_sm_001 : LEM_SM_001.
Hypothesis lem_sm_002 : LEM_SM_002.
Hypothesis lem_sm_003 : LEM_SM_003.
Hypothesis lem_sm_005 : LEM_SM_005.
Hypothesis lem_sm_004 : LEM_SM_004.

(** The exps of a finite row: each in [0, 1], one of them == 1 (LEM-ASCL-001, LEM-SM-001). *)
Lemma softmax_exps_spec (x : list float) :
  x <> [] -> Forall (fun xi => is_finite xi = true) x ->
  Forall (fun e => Bleb zero e = true /\ Bleb e one = true) (softmax_exps x) /\
  Exists (fun e => Beqb e one = true) (softmax_exps x).
Proof.
  destruct x as [|x0 xs]; [easy|]. intros _ Fx. inversion Fx as [|? ? F0 Fxs]; subst.
  unfold softmax_exps.
  destruct (row_max_spec lem_ascl_001 x0 xs F0 Fxs) as [Fm [Hle Hex]].
  set (m := row_max x0 xs) in *. split.
  - apply Forall_forall. intros ei Hei. apply in_map_iff in Hei. destruct Hei as [xi [<- Hi]].
    pose proof (proj1 (Forall_forall _ _) Fx xi Hi) as Fi.
    pose proof (proj1 (Forall_forall _ _) Hle xi Hi) as Hi'.
    destruct (lem_sm_001 xi m Fi Fm Hi') as [H0 [H1 _]]. split; assumption.
  - apply Exists_exists in Hex. destruct Hex as [xk [Hk Heq]].
    apply Exists_exists. exists (shifted_exp_step xk m). split; [apply (in_map (fun xi => shifted_exp_step xi m)), Hk|].
    destruct (lem_sm_001 xk m (proj1 (Forall_forall _ _) Fx xk Hk) Fm
                (Beqb_Bleb _ _ (Beqb_sym _ _ Heq))) as [_ [_ H1]].
    apply H1, Beqb_sym, Heq.
Qed.

(** The running sum, with the floating-point count c_i = fl(c_{i-1} + 1) as a ghost: s only
    grows, stays >= every e_i added, and s <= c <= 2^p (LEM-SM-002, -003, -005). *)
Lemma row_sum_spec (es : list float) (s c : float) :
  Forall (fun e => Bleb zero e = true /\ Bleb e one = true) es ->
  Bleb zero s = true -> Bleb s c = true -> Bleb c top = true ->
  let r := fold_left sum_step es s in
  Bleb s r = true /\ Forall (fun e => Bleb e r = true) es /\
  exists c', Bleb r c' = true /\ Bleb c' top = true.
Proof.
  revert s c. induction es as [|e es IH]; intros s c He Hs Hsc Hc; simpl.
  - split; [exact (Bleb_refl_right _ _ Hs)|]. split; [constructor|]. exists c. split; assumption.
  - inversion He as [|? ? [He0 He1] Hes]; subst.
    destruct (lem_sm_002 s e Hs He0 He1) as [Hs1 [He1' Hs1top]].
    pose proof (Bleb_trans _ _ _ Hs Hsc) as Hc0.
    destruct (lem_sm_003 c Hc0 Hc) as [Hc10 Hc1].
    pose proof (lem_sm_005 s c Hs Hsc Hc) as Hmono.
    pose proof (Bleb_trans _ _ _ Hs1top Hmono) as Hs1c1.
    pose proof (Bleb_trans _ _ _ Hs Hs1) as Hs10.
    destruct (IH (sum_step s e) (Bplus mode_NE c one) Hes Hs10 Hs1c1 Hc1) as [Hr [Hall Hex]].
    split; [exact (Bleb_trans _ _ _ Hs1 Hr)|]. split; [|exact Hex].
    constructor; [exact (Bleb_trans _ _ _ He1' Hr) | exact Hall].
Qed.

(** KANI-SM-002 for every row length d >= 1: every output of the kernel's softmax of a finite row
    is in [0, 1] (hence not NaN), given the six step lemmas.
    {transcribes harnesses/softmax_kernel.cpp bmc_sm_002 #a3c2a1e9} *)
Theorem kani_sm_002_all_d (x : list float) :
  x <> [] -> Forall (fun xi => is_finite xi = true) x ->
  Forall (fun yi => Bleb zero yi = true /\ Bleb yi one = true) (softmax x).
Proof.
  intros Hne Fx. destruct (softmax_exps_spec x Hne Fx) as [He Hk].
  unfold softmax, normalise_row. set (e := softmax_exps x) in *.
  destruct top_finite_nonneg as [Ftop Htop].
  destruct (row_sum_spec e zero zero He (Bleb_refl_finite _ is_finite_zero)
              (Bleb_refl_finite _ is_finite_zero) Htop) as [H0s [Hall [c [Hsc Hctop]]]].
  fold (row_sum e) in H0s, Hall, Hsc.
  (* s >= e_k == 1, s <= c <= 2^p: s is finite and >= 1. *)
  assert (H1s : Bleb one (row_sum e) = true).
  { apply Exists_exists in Hk. destruct Hk as [ek [Hek Heq]].
    apply Bleb_trans with (b := ek); [apply Beqb_Bleb, Beqb_sym, Heq|].
    exact (proj1 (Forall_forall _ _) Hall ek Hek). }
  assert (Fs : is_finite (row_sum e) = true).
  { apply (Bleb_between_finite one _ top H1s (Bleb_trans _ _ _ Hsc Hctop) is_finite_one Ftop). }
  apply Forall_forall. intros yi Hyi. apply in_map_iff in Hyi. destruct Hyi as [ei [<- Hi]].
  destruct (proj1 (Forall_forall _ _) He ei Hi) as [He0 _].
  apply (lem_sm_004 ei (row_sum e) He0 (proj1 (Forall_forall _ _) Hall ei Hi) H1s Fs).
Qed.
End Sm002.
End Kernel.

(** Outside the section every definition takes the format ([prec], [emax]) and its two Flocq
    classes as arguments; these make them implicit for the files that build on this one. *)
Arguments zero {prec emax}.
Arguments one {prec emax prec_gt_0_ prec_lt_emax_}.
Arguments top {prec emax prec_gt_0_ prec_lt_emax_}.
Arguments max_step {prec emax}.
Arguments shifted_exp_step {prec emax prec_gt_0_ prec_lt_emax_} exp.
Arguments row_max {prec emax}.
Arguments sum_step {prec emax prec_gt_0_ prec_lt_emax_}.
Arguments row_sum {prec emax prec_gt_0_ prec_lt_emax_}.
Arguments normalise_row {prec emax prec_gt_0_ prec_lt_emax_}.
Arguments softmax_exps {prec emax prec_gt_0_ prec_lt_emax_} exp.
Arguments softmax {prec emax prec_gt_0_ prec_lt_emax_} exp.
Arguments LEM_SM_001 prec emax {prec_gt_0_ prec_lt_emax_} exp.
Arguments LEM_SM_002 prec emax {prec_gt_0_ prec_lt_emax_}.
Arguments LEM_SM_003 prec emax {prec_gt_0_ prec_lt_emax_}.
Arguments LEM_SM_005 prec emax {prec_gt_0_ prec_lt_emax_}.
Arguments LEM_SM_004 prec emax {prec_gt_0_ prec_lt_emax_}.
