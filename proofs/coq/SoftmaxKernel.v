(** * Softmax in exact arithmetic: positivity, partition of unity, shift invariance, order
      (softmax-kernel-v1) *)
(** The real-number core of softmax-kernel-v1. The contract's obligations are about the ROUNDED
    kernel; the gap is stated in proofs/softmax_kernel.tex: after rounding, positivity becomes
    "≥ 0, zero only where the exact value may round to zero" (SM-BND-002), the sum is 1 within
    a derived bound (SM-INV-001), and strict order becomes non-decreasing order (SM-MON-001). *)
From Coq Require Import Reals Lia Lra.
From Attncheck Require Import Sums.
Open Scope R_scope.

(** The partition function Z(x) = Σ_j exp x_j and softmax(x)_i = exp x_i / Z(x). *)
Definition partition (n : nat) (x : nat -> R) : R := sum n (fun j => exp (x j)).
Definition softmax (n : nat) (x : nat -> R) (i : nat) : R := exp (x i) / partition n x.

Lemma partition_pos n x : (0 < n)%nat -> 0 < partition n x.
Proof. intros Hn. apply sum_pos; [exact Hn | intros; apply exp_pos]. Qed.

(** SM-BND-002 (exact core): every softmax output is strictly positive. *)
Theorem softmax_pos n x i : (0 < n)%nat -> 0 < softmax n x i.
Proof.
  intros Hn. unfold softmax. apply Rdiv_lt_0_compat; [apply exp_pos | apply partition_pos, Hn].
Qed.

(** SM-INV-001 (exact core): the outputs sum to one (n ≥ 1). *)
Theorem softmax_sum_1 n x : (0 < n)%nat -> sum n (softmax n x) = 1.
Proof.
  intros Hn. unfold softmax. rewrite sum_div. fold (partition n x).
  field. apply Rgt_not_eq, partition_pos, Hn.
Qed.

(** SM-BND-002 (exact core): every output is at most one. *)
Theorem softmax_le_1 n x i : (0 < n)%nat -> (i < n)%nat -> softmax n x i <= 1.
Proof.
  intros Hn Hi. rewrite <- (softmax_sum_1 n x Hn).
  apply term_le_sum; [intros; left; apply softmax_pos, Hn | exact Hi].
Qed.

(** SM-INV-002 (exact core): softmax(x + c·1) = softmax(x). *)
Theorem softmax_shift n x c i : softmax n (fun j => x j + c) i = softmax n x i.
Proof.
  unfold softmax, partition.
  rewrite (sum_ext n (fun j => exp (x j + c)) (fun j => exp c * exp (x j)))
    by (intros; rewrite exp_plus; ring).
  rewrite sum_scal_l, exp_plus.
  destruct (Req_dec (sum n (fun j => exp (x j))) 0) as [H0|H0].
  - rewrite H0, Rmult_0_r. unfold Rdiv. rewrite Rinv_0. ring.
  - field. split; [exact H0 | apply Rgt_not_eq, exp_pos].
Qed.

(** ASCL-INV-001 (exact core): subtracting the row maximum (or any constant) changes nothing. *)
Corollary softmax_sub_max n x m i :
  exp (x i - m) / sum n (fun j => exp (x j - m)) = softmax n x i.
Proof.
  pose proof (softmax_shift n x (- m) i) as H. unfold softmax, partition in H |- *.
  rewrite <- H. f_equal.
Qed.

(** SM-MON-001 (exact core): strict order is preserved and reflected. *)
Theorem softmax_lt_iff n x i j :
  (0 < n)%nat -> (x i < x j <-> softmax n x i < softmax n x j).
Proof.
  intros Hn. pose proof (partition_pos n x Hn) as HZ. unfold softmax. split; intros H.
  - apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat, HZ | apply exp_increasing, H].
  - apply exp_lt_inv. apply (Rmult_lt_reg_r (/ partition n x)); [apply Rinv_0_lt_compat, HZ|].
    exact H.
Qed.

(** SM-MON-001 (exact core): equal inputs give equal outputs, and only they do. *)
Theorem softmax_eq_iff n x i j :
  (0 < n)%nat -> (x i = x j <-> softmax n x i = softmax n x j).
Proof.
  intros Hn. split; intros H.
  - unfold softmax. rewrite H. reflexivity.
  - destruct (Rtotal_order (x i) (x j)) as [Hlt|[Heq|Hgt]]; [|exact Heq|].
    + apply (softmax_lt_iff n x i j Hn) in Hlt. lra.
    + apply (softmax_lt_iff n x j i Hn) in Hgt. lra.
Qed.
