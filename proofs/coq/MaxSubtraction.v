(** * Max subtraction never produces a positive exponent argument (softmax-kernel-v1,
      attention-scaling-v1) *)
(** In any radix and any format (Flocq's generic [fexp]) with any monotone rounding (round to
    nearest included), fl(x_i − max x) ≤ 0, and = 0 at the maximum; so exp(fl(x_i − max x)) ≤ 1
    never overflows. Then the same in IEEE-754 binary arithmetic with overflow (Flocq's
    BinarySingleNaN, round to nearest even): for finite x_i ≤ m, x_i ⊖ m is finite and ≤ 0, or
    it overflows to −∞ (whose exp is 0), never to +∞. Gap to the kernel: the libm's exp is not
    modelled here; SM-BND-001 assumes it is monotone with exp(0) = 1 (proofs/softmax_kernel.tex). *)
From Coq Require Import Reals Lia Lra SpecFloat.
From Flocq Require Import Core.Core IEEE754.BinarySingleNaN.
From Attncheck Require Import Sums.
Open Scope R_scope.

Section Generic.
Variable beta : radix.
Variable fexp : Z -> Z.
Context { valid_exp : Valid_exp fexp }.
Variable rnd : R -> Z.
Context { valid_rnd : Valid_rnd rnd }.
Notation fl := (round beta fexp rnd).

(** ASCL-INV-001: below the maximum, the rounded difference is ≤ 0. *)
Theorem round_sub_max_nonpos xi m : xi <= m -> fl (xi - m) <= 0.
Proof.
  intros H. rewrite <- (round_0 beta fexp rnd). apply round_le; [exact valid_exp | exact valid_rnd | lra].
Qed.

(** ASCL-INV-001: at the maximum, the rounded difference is exactly 0. *)
Theorem round_sub_max_at_max m : fl (m - m) = 0.
Proof. replace (m - m) with 0 by ring. apply round_0. exact valid_rnd. Qed.

(** ASCL-INV-001 for a whole row: with m = x_a the row maximum (it exists for n ≥ 1), every
    fl(x_i − m) ≤ 0 and fl(x_a − m) = 0. *)
Theorem row_sub_max_nonpos n (x : nat -> R) :
  (0 < n)%nat ->
  exists a, (a < n)%nat /\ (forall i, (i < n)%nat -> fl (x i - x a) <= 0) /\ fl (x a - x a) = 0.
Proof.
  intros Hn. destruct (argmax n x Hn) as [a [Ha Hmax]].
  exists a. split; [exact Ha|]. split.
  - intros i Hi. apply round_sub_max_nonpos, Hmax, Hi.
  - apply round_sub_max_at_max.
Qed.
End Generic.

Section Binary.
Variable prec emax : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Context (prec_lt_emax_ : Prec_lt_emax prec emax).
Notation float := (binary_float prec emax).
Notation fexp := (SpecFloat.fexp prec emax).

Lemma B2R_nonneg_of_sign (x : float) : is_finite x = true -> Bsign x = false -> 0 <= B2R x.
Proof.
  destruct x as [s|s| |s mx ex Hx]; simpl; intros Hf Hs; try discriminate; [lra|].
  subst s. left. apply F2R_gt_0. simpl. lia.
Qed.

Lemma B2R_nonpos_of_sign (x : float) : is_finite x = true -> Bsign x = true -> B2R x <= 0.
Proof.
  destruct x as [s|s| |s mx ex Hx]; simpl; intros Hf Hs; try discriminate; [lra|].
  subst s. left. apply F2R_lt_0. simpl. lia.
Qed.

(** ASCL-INV-001 in IEEE-754 binary arithmetic, round to nearest even: for finite x ≤ m the
    difference x ⊖ m is a finite number ≤ 0 or −∞; it is never +∞ nor NaN. *)
Theorem binary_sub_max_nonpos (x m : float) :
  is_finite x = true -> is_finite m = true -> B2R x <= B2R m ->
  (is_finite (Bminus mode_NE x m) = true /\ B2R (Bminus mode_NE x m) <= 0)
  \/ B2SF (Bminus mode_NE x m) = S754_infinity true.
Proof.
  intros Fx Fm Hle.
  pose proof (Bminus_correct prec emax prec_gt_0_ prec_lt_emax_ mode_NE x m Fx Fm) as H.
  destruct (Rlt_bool_spec (Rabs (round radix2 fexp (round_mode mode_NE) (B2R x - B2R m)))
                          (bpow radix2 emax)) as [_|Hover].
  - destruct H as [HR [Hf _]]. left. split; [exact Hf|]. rewrite HR.
    apply round_sub_max_nonpos; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N | exact Hle].
  - destruct H as [HSF Hsign]. right. rewrite HSF. unfold binary_overflow. simpl.
    destruct (Bsign x) eqn:Sx; [reflexivity|].
    (* x ≥ 0 and m ≤ 0 with x ≤ m: the difference is 0, which cannot overflow. *)
    exfalso.
    assert (Sm : Bsign m = true) by (destruct (Bsign m); simpl in Hsign; congruence).
    pose proof (B2R_nonneg_of_sign x Fx Sx). pose proof (B2R_nonpos_of_sign m Fm Sm).
    replace (B2R x - B2R m) with 0 in Hover by lra.
    rewrite round_0 in Hover by apply valid_rnd_N. rewrite Rabs_R0 in Hover.
    pose proof (bpow_gt_0 radix2 emax). lra.
Qed.

(** ASCL-INV-001 at the maximum: m ⊖ m is a finite zero. *)
Theorem binary_sub_max_at_max (m : float) :
  is_finite m = true -> is_finite (Bminus mode_NE m m) = true /\ B2R (Bminus mode_NE m m) = 0.
Proof.
  intros Fm.
  pose proof (Bminus_correct prec emax prec_gt_0_ prec_lt_emax_ mode_NE m m Fm Fm) as H.
  replace (B2R m - B2R m) with 0 in H by ring.
  rewrite round_0 in H by apply valid_rnd_N. rewrite Rabs_R0 in H.
  rewrite Rlt_bool_true in H by apply bpow_gt_0.
  destruct H as [HR [Hf _]]. split; [exact Hf | exact HR].
Qed.
End Binary.
