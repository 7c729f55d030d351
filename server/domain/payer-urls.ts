// Where payers go: the hosted pages' addresses, as the API hands them out and e-mails carry them.

export function paymentUrl(publicUrl: string, paymentLinkId: string): string {
  return `${publicUrl}/payment/pay?id=${paymentLinkId}`;
}

export function openPaymentUrl(publicUrl: string, openPaymentLinkId: string): string {
  return `${publicUrl}/payment/open-link/pay?id=${openPaymentLinkId}`;
}

export function activationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/tokenization/activation/${token}`;
}
